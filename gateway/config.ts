import { z } from 'zod';
import { baseEnv, envFlag, grpcClientEnv, optionalEnv, requiredInProduction } from '../services/platform/config';
import { chainRpcUrls } from '../services/platform/chain-urls';
import { byAddressVariable, defaultGrpcAddress } from '../services/platform/service-catalog';

const byteSize = z.string().regex(/^\d+(b|kb|mb)$/i, 'a size such as 256kb or 16mb');

/** Stands in for SESSION_SECRET outside production; public, so production refuses to start without the real one. */
export const DEVELOPMENT_SESSION_SECRET = 'development-only-session-secret--never-use-in-production';

const gatewayEnv = z.object({
  ...baseEnv,
  HOST: z.string().default('0.0.0.0'),
  /** Gateway processes sharing PORT (read by main.ts before the rest): one per core on a machine of its own. */
  GATEWAY_WORKERS: z.coerce.number().int().min(1).max(64).default(1),
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  /**
   * Prometheus metrics (GET /metrics) are served here, on a port of their own, never on PORT: the
   * public port answers /metrics 404. 127.0.0.1 by default, so only the machine itself can scrape;
   * a scraper on another host (a Kubernetes pod's Prometheus) needs 0.0.0.0 and a network that keeps
   * the port private. METRICS_PORT 0 takes any free port.
   */
  METRICS_HOST: z.string().default('127.0.0.1'),
  METRICS_PORT: z.coerce.number().int().min(0).max(65_535).default(9464),
  /**
   * How long a client may take to send a request's headers (HEADERS_TIMEOUT_MS) and the whole
   * request, body included (REQUEST_TIMEOUT_MS), from its first byte: a slower one is answered 408
   * and its connection closed, so slow senders cannot hold connections open. Not the time to answer.
   */
  HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /** Creates projects (and their first keys). Unset: project creation answers 403. */
  PLATFORM_API_KEY: z.string().min(32, 'PLATFORM_API_KEY must be at least 32 characters (generate one with `openssl rand -hex 32`)').optional(),
  /** Where each service listens (AUDIENCE_GRPC_ADDR, TAX_GRPC_ADDR, ...: services/platform/service-catalog.ts). */
  ...byAddressVariable((service) => z.string().default(defaultGrpcAddress(service))),
  /** Deadline of every gRPC call that does not ask for a longer one. */
  ...grpcClientEnv,
  JSON_BODY_LIMIT: byteSize.default('256kb'),
  /** The batch endpoint takes up to 10,000 entries; long identifiers need room. */
  BATCH_BODY_LIMIT: byteSize.default('16mb'),
  /** Requests a second per API key (tokens refill continuously); 0 turns the limit off. */
  RATE_LIMIT_PER_SECOND: z.coerce.number().min(0).default(1_000),
  RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(2_000),
  /**
   * POST /api/v1/events (tracking events of the @fuul/sdk), beside the limit above: requests a second
   * per API key, and events a second per metadata.tracking_id (one visitor); 0 turns a limit off.
   */
  EVENTS_RATE_LIMIT_PER_SECOND: z.coerce.number().min(0).default(1_000),
  EVENTS_RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(2_000),
  EVENTS_PER_TRACKING_ID_PER_SECOND: z.coerce.number().min(0).default(5),
  EVENTS_PER_TRACKING_ID_BURST: z.coerce.number().int().min(1).default(100),
  /** How long a verified API key is trusted without asking PostgreSQL again (revocation is pushed at once). */
  API_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(300_000).default(30_000),
  /** Check every response against its OpenAPI schema (tests turn this on). */
  VALIDATE_RESPONSES: envFlag(false),
  /** Log one line per request at info (otherwise at debug). */
  /**
   * Which requests get an info log line: `errors` (4xx/5xx and requests slower than a second; the
   * rest go to debug, and Prometheus counts them all) or `all`.
   */
  ACCESS_LOG: z.enum(['errors', 'all']).default('errors'),
  TRUST_PROXY: envFlag(false),
  /**
   * Sign-In with Ethereum: the authority (host[:port]) and URI the wallet is asked to sign in to.
   * Unset, they follow PORT (localhost:PORT), so a local gateway moved to another port still works.
   */
  SIWE_DOMAIN: optionalEnv(z.string().regex(/^[A-Za-z0-9.-]+(:\d{1,5})?$/, 'a host, optionally with :port, e.g. app.example.com')),
  SIWE_URI: optionalEnv(z.url({ protocol: /^https?$/ })),
  SIWE_CHAIN_ID: z.coerce.number().int().min(1).default(1),
  /** How long a sign-in message may wait for its signature. */
  SIWE_NONCE_TTL_SECONDS: z.coerce.number().int().min(30).max(3_600).default(300),
  /** Signs wallet session tokens (HMAC-SHA256). At least 32 characters: openssl rand -hex 32. */
  SESSION_SECRET: optionalEnv(z.string().min(32, 'SESSION_SECRET must be at least 32 characters (openssl rand -hex 32)')),
  /**
   * What a wallet signs (EIP-191) to create its affiliate code through POST /api/v1/affiliates (the
   * @fuul/sdk's createAffiliateCode); {code} stands for the code.
   */
  AFFILIATE_CODE_MESSAGE_TEMPLATE: z
    .string()
    .max(500)
    .refine((template) => template.includes('{code}'), 'must contain {code}, where the code goes')
    .default('I confirm that I am creating the {code} code'),
  /**
   * A JSON-RPC endpoint per chain, `chainId=https://…,…` (the claim service's variable and format):
   * where signatures of contract wallets (EIP-1271, ERC-6492) are checked, for the chain a request
   * names (`account_chain_id`, SIWE_CHAIN_ID). Unset: only keys' own signatures can be checked.
   */
  CHAIN_RPC_URLS: optionalEnv(z.string()),
  /** Longest a contract wallet's signature check may wait for its chain; then the request answers 503. */
  CHAIN_RPC_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  /**
   * What an affiliate's wallet signs to change its code through POST /api/v1/affiliates/:user_identifier
   * (the @fuul/sdk's updateAffiliateCode); {code} stands for the new code.
   */
  AFFILIATE_CODE_UPDATE_MESSAGE_TEMPLATE: z
    .string()
    .max(500)
    .refine((template) => template.includes('{code}'), 'must contain {code}, where the new code goes')
    .default('I confirm that I am updating my code to {code}'),
  /**
   * What an affiliate's wallet signs to set a code's user rebate rate through
   * POST /api/v1/affiliates/:user_identifier/rebate-rate (the @fuul/sdk's updateRebateRate); {code} stands
   * for the code as sent, {rate} for the rate as sent (e.g. 0.05).
   */
  AFFILIATE_REBATE_MESSAGE_TEMPLATE: z
    .string()
    .max(500)
    .refine((template) => template.includes('{code}') && template.includes('{rate}'), 'must contain {code} and {rate}')
    .default('I confirm that I am setting the rebate rate of {code} to {rate}'),
  /** Lifetime of a wallet session token. */
  SESSION_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(900),
});

export const gatewayConfigSchema = gatewayEnv
  .superRefine(requiredInProduction(['SESSION_SECRET']))
  .superRefine((env, ctx) => {
    // Node refuses a headers timeout longer than the request's, which includes the headers.
    if (env.HEADERS_TIMEOUT_MS > env.REQUEST_TIMEOUT_MS) {
      ctx.addIssue({ code: 'custom', path: ['HEADERS_TIMEOUT_MS'], message: `must be at most REQUEST_TIMEOUT_MS (${env.REQUEST_TIMEOUT_MS})` });
    }
    if (env.METRICS_PORT !== 0 && env.METRICS_PORT === env.PORT) {
      ctx.addIssue({
        code: 'custom',
        path: ['METRICS_PORT'],
        message: `must differ from PORT (${env.PORT}): metrics are not served on the public port`,
      });
    }
  })
  .transform(({ SESSION_SECRET, SIWE_DOMAIN, SIWE_URI, CHAIN_RPC_URLS, ...rest }, ctx) => ({
    ...rest,
    /** CHAIN_RPC_URLS by chain id. */
    chainRpcUrls: chainRpcUrls(CHAIN_RPC_URLS, ctx) ?? z.NEVER,
    SIWE_DOMAIN: SIWE_DOMAIN ?? `localhost:${rest.PORT}`,
    SIWE_URI: SIWE_URI ?? `http://localhost:${rest.PORT}`,
    SESSION_SECRET: SESSION_SECRET ?? DEVELOPMENT_SESSION_SECRET,
    /** True when SESSION_SECRET was not set and the public development secret stands in. */
    sessionSecretIsDevelopment: SESSION_SECRET === undefined,
  }));

export type GatewayConfig = z.output<typeof gatewayConfigSchema>;
