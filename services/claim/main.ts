import { runService } from '../common/service-manifest';
import { claimManifest } from './manifest';

runService(claimManifest);
