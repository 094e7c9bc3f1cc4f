import { runService } from '../platform/service-manifest';
import { claimManifest } from './manifest';

runService(claimManifest);
