import { z } from 'zod';
import { serviceEnv } from '../common/config';
import { SERVICE_CATALOG } from '../common/service-catalog';

export const audienceConfigSchema = z.object({
  ...serviceEnv(SERVICE_CATALOG.audience.defaultGrpcPort),
  BATCH_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
});

export type AudienceConfig = z.output<typeof audienceConfigSchema>;
