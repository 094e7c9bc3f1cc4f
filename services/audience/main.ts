import { loadConfig } from '../common/config';
import { runProcess } from '../common/lifecycle';
import { audienceConfigSchema } from './config';
import { startAudienceService } from './server';

runProcess('audience', () => startAudienceService(loadConfig(audienceConfigSchema)));
