import { runService } from '../platform/service-manifest';
import { agencyManifest } from './manifest';

runService(agencyManifest);
