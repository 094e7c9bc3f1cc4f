import { AudienceServiceService } from '../../gen/referral/audience/v1/audience';
import { type RunningService, ServiceRuntime, type ServiceOverrides } from '../common/service-runtime';
import type { AudienceConfig } from './config';
import { buildAudienceDomain } from './composition';
import type { AudienceDatabase } from './database';
import { AUDIENCE_SERVICE_NAME, createAudienceGrpcService } from './grpc/audience.grpc';
import { applyEntryBatch, applyEntryBatchJob } from './jobs/apply-entry-batch.job';
import { entryBatchRelay } from './jobs/entry-batch-relay';
import { BullEntryBatchScheduler } from './jobs/entry-batch-scheduler';
import { audienceMigrations } from './migrations';

export const AUDIENCE_SCHEMA = 'audience';

/** The service's process: its runtime, its domain (composition.ts), jobs and gRPC. Used by main.ts and by the tests. */
export async function startAudienceService(config: AudienceConfig, overrides: ServiceOverrides = {}): Promise<RunningService> {
  const runtime = await ServiceRuntime.start<AudienceDatabase>({
    name: 'audience',
    schema: AUDIENCE_SCHEMA,
    migrations: audienceMigrations,
    config,
    overrides,
  });
  const { db, queues, relay, clock, logger } = runtime;
  // Listening before the first wait, so no completion event is missed.
  await queues.queueEvents(applyEntryBatchJob.queue).waitUntilReady();

  const domain = buildAudienceDomain({ db, clock, logger, scheduler: new BullEntryBatchScheduler(queues) });

  if (config.RUN_WORKERS) {
    queues.process(applyEntryBatchJob, applyEntryBatch(domain.batches), config.BATCH_WORKER_CONCURRENCY);
    relay.register(entryBatchRelay(domain.batches));
  }

  return runtime.serve([
    { name: AUDIENCE_SERVICE_NAME, definition: AudienceServiceService, implementation: createAudienceGrpcService(domain, logger) },
  ]);
}
