import { z } from 'zod';
import { serviceEnv } from '../common/config';

export const audienceConfigSchema = z.object({
  ...serviceEnv(50051),
  BATCH_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
});

export type AudienceConfig = z.output<typeof audienceConfigSchema>;
