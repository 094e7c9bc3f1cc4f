import { runService } from '../common/service-manifest';
import { agencyManifest } from './manifest';

runService(agencyManifest);
