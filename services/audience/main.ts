import { runService } from '../platform/service-manifest';
import { audienceManifest } from './manifest';

runService(audienceManifest);
