import { z } from 'zod';
import { serviceEnv } from '../platform/config';
import { SERVICE_CATALOG } from '../platform/service-catalog';

export const audienceConfigSchema = z.object({
  ...serviceEnv(SERVICE_CATALOG.audience.defaultGrpcPort),
  BATCH_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  /** Full evaluations of dynamic segments at once (each is one large statement). */
  EVALUATION_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(8).default(1),
  /** How long changed users are collected per project before they are matched together. */
  MATCHING_DEBOUNCE_MS: z.coerce.number().int().min(0).max(60_000).default(300),
});

export type AudienceConfig = z.output<typeof audienceConfigSchema>;
