import { z } from 'zod';
import { baseEnv, envFlag } from '../services/common/config';

const byteSize = z.string().regex(/^\d+(b|kb|mb)$/i, 'a size such as 256kb or 16mb');

export const gatewayConfigSchema = z.object({
  ...baseEnv,
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  /** Creates projects (and their first keys). Unset: project creation answers 403. */
  PLATFORM_API_KEY: z
    .string()
    .min(32, 'PLATFORM_API_KEY must be at least 32 characters (generate one with `openssl rand -hex 32`)')
    .optional(),
  AUDIENCE_GRPC_ADDR: z.string().default('127.0.0.1:50051'),
  /** Deadline of every gRPC call that does not ask for a longer one. */
  GRPC_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5_000),
  JSON_BODY_LIMIT: byteSize.default('256kb'),
  /** The batch endpoint takes up to 10,000 entries; long identifiers need room. */
  BATCH_BODY_LIMIT: byteSize.default('16mb'),
  /** Requests a second per API key (tokens refill continuously); 0 turns the limit off. */
  RATE_LIMIT_PER_SECOND: z.coerce.number().min(0).default(1_000),
  RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(2_000),
  /** How long a verified API key is trusted without asking PostgreSQL again (revocation is pushed at once). */
  API_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(300_000).default(30_000),
  /** Check every response against its OpenAPI schema (tests turn this on). */
  VALIDATE_RESPONSES: envFlag(false),
  /** Log one line per request at info (otherwise at debug). */
  ACCESS_LOG: envFlag(true),
  TRUST_PROXY: envFlag(false),
});

export type GatewayConfig = z.output<typeof gatewayConfigSchema>;
