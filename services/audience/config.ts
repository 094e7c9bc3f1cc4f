import { z } from 'zod';
import { baseEnv, envFlag, grpcPortEnv } from '../common/config';

export const audienceConfigSchema = z.object({
  ...baseEnv,
  GRPC_HOST: z.string().default('0.0.0.0'),
  GRPC_PORT: grpcPortEnv(50051),
  /** Run the BullMQ workers in this process (turn off to scale gRPC and workers apart). */
  RUN_WORKERS: envFlag(true),
  BATCH_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  /** A stored batch still unfinished after this long is queued again by the relay. */
  STALE_BATCH_AFTER_MS: z.coerce.number().int().min(1_000).default(120_000),
});

export type AudienceConfig = z.output<typeof audienceConfigSchema>;
