/**
 * `npm start`: the whole stack on one machine. Each service and the gateway run as their own
 * process (as they do in containers), supervised by this one (scripts/stack/): a member that
 * crashes is restarted with backoff, and SIGINT/SIGTERM stop them all, the gateway first.
 * Variables come from the environment, then from ./.env, then the defaults.
 */
import path from 'node:path';
import { ConfigError, loadConfig } from '../services/platform/config';
import { EXIT_CONFIG_ERROR } from '../services/platform/lifecycle';
import { loadEnvFile } from './stack/env-file';
import { DEV_ACCOUNT, DEV_CHAIN_ID, DEV_CLAIM_MANAGER, DEV_TOKEN } from './dev-chain/constants';
import { devChainRuns, devChainUrl, stackConfigSchema, stackMembers } from './stack/members';
import { runStack } from './stack/run-stack';

/**
 * A member gets SHUTDOWN_GRACE_MS for its running work (it enforces that itself), and this much
 * more to close its connections, before the supervisor kills it.
 */
const CLOSE_MARGIN_MS = 5_000;

const envFile = path.resolve('.env');
const loaded = loadEnvFile(envFile);
if (loaded) {
  const kept = loaded.kept.length > 0 ? `; already set, so not taken: ${loaded.kept.join(', ')}` : '';
  process.stderr.write(`stack: took ${loaded.applied.length} variables from ${envFile}${kept}\n`);
}

let config;
try {
  config = loadConfig(stackConfigSchema);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`stack: ${error.message}\n`);
  process.exit(EXIT_CONFIG_ERROR);
}

const chain = devChainRuns(config)
  ? `; no chain is configured, so the dev chain ${DEV_CHAIN_ID} runs at ${devChainUrl(config)} (in memory: a restart starts it anew), ` +
    `ClaimManager ${DEV_CLAIM_MANAGER}, ${DEV_TOKEN.symbol} ${DEV_TOKEN.address}, development account ${DEV_ACCOUNT.address} (public key: development only)`
  : '';
void runStack({
  members: stackMembers(config),
  stopTimeoutMs: config.SHUTDOWN_GRACE_MS + CLOSE_MARGIN_MS,
  banner:
    `the gateway listens on http://localhost:${config.PORT} (API reference at /docs), its metrics on ` +
    `http://${config.METRICS_HOST}:${config.METRICS_PORT}/metrics${chain}; Ctrl-C stops everything`,
});
