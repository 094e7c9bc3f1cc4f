import { z } from 'zod';
import { serviceEnv } from '../common/config';

export const audienceConfigSchema = z.object({
  ...serviceEnv(50051),
  BATCH_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  /** A stored batch still unfinished after this long is queued again by the relay. */
  STALE_BATCH_AFTER_MS: z.coerce.number().int().min(1_000).default(120_000),
});

export type AudienceConfig = z.output<typeof audienceConfigSchema>;
