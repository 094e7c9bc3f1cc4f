import { loadConfig } from '../services/common/config';
import { runProcess } from '../services/common/lifecycle';
import { gatewayConfigSchema } from './config';
import { startGateway } from './server';

runProcess('gateway', () => startGateway(loadConfig(gatewayConfigSchema)));
