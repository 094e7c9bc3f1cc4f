import { runService } from '../platform/service-manifest';
import { taxManifest } from './manifest';

runService(taxManifest);
