import { type Clock, systemClock } from '../services/platform/clock';
import { ensureDatabaseExists, openDatabase } from '../services/platform/db/database';
import { migrateToLatest } from '../services/platform/db/migrate';
import type { RunningProcess } from '../services/platform/lifecycle';
import { closeLogger, createLogger, type Logger } from '../services/platform/logger';
import type { AccessDatabase } from './access/access.database';
import { AccessService } from './access/access.service';
import { ApiKeyRepository } from './access/api-key.repository';
import { accessMigrations } from './access/migrations';
import { ProjectRepository } from './access/project.repository';
import { createApp } from './app';
import { ApiKeyCache } from './auth/api-key-cache';
import { Authenticator } from './auth/authenticator';
import { RevocationChannel } from './auth/revocation-channel';
import { SessionTokens } from './auth/session-token';
import { SignInNonceStore } from './auth/sign-in-nonce-store';
import { SignInService } from './auth/siwe';
import { WalletSignatures } from './auth/wallet-signatures';
import { AffiliateMessages } from './auth/affiliate-messages';
import { createServiceClients } from './clients';
import type { GatewayConfig } from './config';
import { bindGatewayListeners } from './http/gateway-listeners';
import type { GatewayRequestListener } from './http/malformed-requests';
import { createHttpMetrics, type HttpMetrics } from './http/metrics';
import { RateLimiter } from './http/rate-limit';

export const ACCESS_SCHEMA = 'access';

/** How long start-up waits for Redis before serving without it. */
const REDIS_WAIT_MS = 5_000;

export interface GatewayOverrides {
  clock?: Clock;
  logger?: Logger;
}

export interface RunningGateway extends RunningProcess {
  port: number;
  /** Where GET /metrics is served (METRICS_PORT, or the port taken when it is 0). */
  metricsPort: number;
}

/** The gateway's composition root, used by main.ts and by the tests. */
export async function startGateway(config: GatewayConfig, overrides: GatewayOverrides = {}): Promise<RunningGateway> {
  const logger =
    overrides.logger ?? createLogger({ service: 'gateway', level: config.LOG_LEVEL, format: config.LOG_FORMAT, nodeEnv: config.NODE_ENV });
  const clock = overrides.clock ?? systemClock;
  if (!config.PLATFORM_API_KEY) {
    logger.warn(
      'PLATFORM_API_KEY is not set, so POST /api/v1/projects answers 403. ' +
        'Set it to a secret of at least 32 characters, e.g. export PLATFORM_API_KEY=$(openssl rand -hex 32)',
    );
  }

  if (config.sessionSecretIsDevelopment) {
    logger.warn(
      'SESSION_SECRET is not set: wallet session tokens are signed with the built-in DEVELOPMENT secret, which is public, ' +
        'so anyone could forge a session. Set SESSION_SECRET to at least 32 random characters (openssl rand -hex 32).',
    );
  }

  // The ports first: they must be ours before any outgoing connection can take one of them.
  const metrics = createHttpMetrics(logger, config.ACCESS_LOG);
  const listeners = await bindGatewayListeners(config, metrics, logger);
  let composed: ComposedGateway;
  try {
    composed = await composeGateway(config, logger, clock, metrics);
  } catch (error) {
    await listeners.close(0);
    throw error;
  }
  listeners.serve(composed.app);
  const { port, metricsPort } = listeners;
  logger.info({ port, docs: `http://localhost:${port}/docs`, metrics: `http://${config.METRICS_HOST}:${metricsPort}/metrics` }, 'gateway listening');

  return {
    port,
    metricsPort,
    stop: async () => {
      await listeners.close(config.SHUTDOWN_GRACE_MS);
      await composed.close();
      logger.info('gateway stopped');
      await closeLogger(logger);
    },
  };
}

interface ComposedGateway {
  app: GatewayRequestListener;
  /** Closes its connections (the services', Redis, PostgreSQL), once no request runs any more. */
  close(): Promise<void>;
}

/** Everything behind the ports: the access schema migrated, Redis, the services' clients, the app. */
async function composeGateway(config: GatewayConfig, logger: Logger, clock: Clock, metrics: HttpMetrics): Promise<ComposedGateway> {
  await ensureDatabaseExists(config.DATABASE_URL);
  const database = openDatabase<AccessDatabase>({
    url: config.DATABASE_URL,
    schema: ACCESS_SCHEMA,
    poolMax: config.DB_POOL_MAX,
    applicationName: 'gateway',
    logger,
  });
  await migrateToLatest(database.db, ACCESS_SCHEMA, accessMigrations, logger);

  const apiKeys = new ApiKeyRepository(database.db);
  const access = new AccessService(new ProjectRepository(database.db), apiKeys, clock);
  const cache = new ApiKeyCache(config.API_KEY_CACHE_TTL_MS);
  const revocations = new RevocationChannel(config.REDIS_URL, config.QUEUE_PREFIX, logger, config.API_KEY_CACHE_TTL_MS);
  const nonces = new SignInNonceStore(config.REDIS_URL, config.QUEUE_PREFIX, logger);
  // Redis is waited for briefly, not required: without it the gateway serves what needs no Redis
  // (keys are checked against PostgreSQL, uncached) and answers 503 to sign-in until it is back.
  const [subscribed, noncesReady] = await Promise.all([
    revocations.listen({ revoked: (keyId) => cache.evictKeyId(keyId), trusted: (live) => cache.setTrusted(live) }, REDIS_WAIT_MS),
    nonces.connected(REDIS_WAIT_MS),
  ]);
  if (!subscribed || !noncesReady) logger.warn('Redis is not reachable yet: API keys are not cached and wallet sign-in answers 503 until it is');
  const clients = createServiceClients(config);
  const sessions = new SessionTokens(config.SESSION_SECRET, config.SESSION_TTL_SECONDS, clock);
  const signatures = new WalletSignatures(config.AFFILIATE_CODE_MESSAGE_TEMPLATE, {
    rpcUrls: config.chainRpcUrls,
    timeoutMs: config.CHAIN_RPC_TIMEOUT_MS,
  });
  const signIn = new SignInService(
    nonces,
    sessions,
    { domain: config.SIWE_DOMAIN, uri: config.SIWE_URI, chainId: config.SIWE_CHAIN_ID, nonceTtlSeconds: config.SIWE_NONCE_TTL_SECONDS },
    clock,
    signatures,
  );
  const authenticator = new Authenticator(
    access,
    cache,
    new RateLimiter(config.RATE_LIMIT_PER_SECOND, config.RATE_LIMIT_BURST),
    config.PLATFORM_API_KEY,
    sessions,
  );

  const { app } = createApp({
    config,
    logger,
    authenticator,
    metrics,
    routes: {
      clients,
      access,
      signIn,
      signatures,
      affiliateMessages: new AffiliateMessages({
        codeUpdate: config.AFFILIATE_CODE_UPDATE_MESSAGE_TEMPLATE,
        rebateRate: config.AFFILIATE_REBATE_MESSAGE_TEMPLATE,
      }),
      clock,
      eventLimits: {
        perKey: new RateLimiter(config.EVENTS_RATE_LIMIT_PER_SECOND, config.EVENTS_RATE_LIMIT_BURST),
        perTrackingId: new RateLimiter(config.EVENTS_PER_TRACKING_ID_PER_SECOND, config.EVENTS_PER_TRACKING_ID_BURST),
      },
      sharedReads: metrics.sharedReads,
      keyRevoked: async (keyId) => {
        cache.evictKeyId(keyId);
        await revocations.publish(keyId);
      },
    },
    readiness: [
      { name: 'postgres', check: () => apiKeys.ping().then(() => true) },
      { name: 'redis', check: () => revocations.ping().then(() => true) },
      ...clients.health.map((health) => ({ name: health.service, check: health.check })),
    ],
  });

  return {
    app,
    close: async () => {
      clients.close();
      await nonces.close();
      await revocations.close();
      await database.close();
    },
  };
}
