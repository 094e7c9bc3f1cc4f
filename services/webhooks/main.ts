import { runService } from '../platform/service-manifest';
import { webhooksManifest } from './manifest';

runService(webhooksManifest);
