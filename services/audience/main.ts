import { runService } from '../common/service-manifest';
import { audienceManifest } from './manifest';

runService(audienceManifest);
