import { z } from 'zod';
import { LOG_FORMATS } from './logger';

/** A configuration problem found at start-up; the message names every bad variable. */
export class ConfigError extends Error {
  override readonly name: string = 'ConfigError';
}

/**
 * Validates the environment once, at start-up, against a service's schema.
 * Every problem is reported together so a misconfigured deployment is fixed in one pass.
 * An empty value (`NAME=` in a .env file, or compose passing an unset `${NAME}`) counts as unset,
 * so it takes the default instead of failing validation or coercing to 0.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.output<S> {
  const parsed = schema.safeParse(Object.fromEntries(Object.entries(env).filter(([, value]) => value !== '')));
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.') || '(environment)'}: ${issue.message}`);
  throw new ConfigError(`invalid configuration:\n${problems.join('\n')}`);
}

/**
 * A listening address that another process holds is a configuration problem: the answer names the
 * variable that moves it, instead of a stack trace. Other listen errors are returned unchanged.
 */
export function listenError(error: unknown, variable: string, address: string): unknown {
  const text = error instanceof Error ? `${(error as NodeJS.ErrnoException).code ?? ''} ${error.message}` : String(error);
  if (!text.includes('EADDRINUSE')) return error;
  return new ConfigError(`${address} is already in use by another process: set ${variable} to a free port, or stop that process`);
}

const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** Variables every process reads; each service extends this with its own. */
export const baseEnv = {
  /** "production" removes the development stand-ins for secrets (see requiredInProduction). */
  NODE_ENV: z.string().default('development'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).default('postgres://postgres@127.0.0.1:5432/referral'),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_-]+$/)
    .default('referral'),
  LOG_LEVEL: logLevel.default('info'),
  /** Unset: readable lines on a terminal outside production, JSON otherwise (services/platform/logger.ts). */
  LOG_FORMAT: z.enum(LOG_FORMATS).optional(),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(25_000),
};

/**
 * Variables of every process that calls services over gRPC (the gateway, and each service with
 * clients of another): one deadline for each call, which a call that may legitimately wait longer
 * raises by itself (CallSettings in services/platform/grpc/client.ts).
 */
export const grpcClientEnv = {
  GRPC_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5_000),
};

/** A gRPC listening port, with the service's own default. */
export const grpcPortEnv = (defaultPort: number) => z.coerce.number().int().min(0).max(65_535).default(defaultPort);

/** Variables every gRPC service reads: baseEnv, where it listens, and whether it runs its workers. */
export const serviceEnv = (defaultGrpcPort: number) => ({
  ...baseEnv,
  GRPC_HOST: z.string().default('0.0.0.0'),
  GRPC_PORT: grpcPortEnv(defaultGrpcPort),
  /** Run the BullMQ workers in this process (turn off to scale gRPC and workers apart). */
  RUN_WORKERS: envFlag(true),
  /** How often the relay checks that all work stored in PostgreSQL has a job in Redis (and re-creates schedules). */
  RELAY_INTERVAL_MS: z.coerce.number().int().min(50).max(600_000).default(5_000),
  /** How often the relay puts back work whose job failed for good before marking the work failed. */
  RELAY_MAX_REQUEUES: z.coerce.number().int().min(0).max(100).default(3),
  /** A running job's lock: when its process dies, another takes the job back after this long. */
  WORKER_LOCK_DURATION_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000),
  /** How often workers look for jobs whose process died (stalled jobs). */
  WORKER_STALLED_INTERVAL_MS: z.coerce.number().int().min(500).max(600_000).default(30_000),
  /** Events the outbox relay reads and queues per round (services/platform/outbox). */
  OUTBOX_RELAY_BATCH: z.coerce.number().int().min(1).max(10_000).default(1_000),
  /** How long relayed events stay in the outbox (a Redis that lost its data gets them again); consumers keep their processed-event keys twice as long. */
  OUTBOX_RETENTION_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 365)
    .default(168),
});

/** A boolean flag in the environment: "true"/"1" or "false"/"0". */
export const envFlag = (defaultValue: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(defaultValue ? 'true' : 'false')
    .transform((value) => value === 'true' || value === '1');

/** An optional variable where an empty value (`NAME=` in a .env file) means unset. */
export const optionalEnv = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

/**
 * Secrets that have a fixed, publicly known development stand-in must be set in production:
 * with NODE_ENV=production a missing one stops start-up with a message naming it.
 * Use as `.superRefine(requiredInProduction([...names]))` on a config object.
 */
export function requiredInProduction<K extends string>(names: readonly K[]) {
  return (env: { NODE_ENV: string } & Partial<Record<K, unknown>>, ctx: z.RefinementCtx): void => {
    if (env.NODE_ENV !== 'production') return;
    for (const name of names) {
      if (env[name] === undefined) {
        ctx.addIssue({ code: 'custom', path: [name], message: `${name} must be set when NODE_ENV=production` });
      }
    }
  };
}
