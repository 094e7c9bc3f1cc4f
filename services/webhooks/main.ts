import { runService } from '../common/service-manifest';
import { webhooksManifest } from './manifest';

runService(webhooksManifest);
