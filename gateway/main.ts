import cluster from 'node:cluster';
import { loadConfig } from '../services/platform/config';
import { runProcess } from '../services/platform/lifecycle';
import { runGatewayCluster } from './cluster';
import { gatewayConfigSchema } from './config';
import { startGateway } from './server';

const workers = Number(process.env.GATEWAY_WORKERS ?? 1);
if (cluster.isPrimary && Number.isInteger(workers) && workers > 1) {
  // The workers validate the configuration themselves; the first that cannot start stops the rest.
  runGatewayCluster(workers);
} else {
  runProcess('gateway', () => startGateway(loadConfig(gatewayConfigSchema)));
}
