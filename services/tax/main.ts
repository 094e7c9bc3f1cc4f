import { runService } from '../common/service-manifest';
import { taxManifest } from './manifest';

runService(taxManifest);
