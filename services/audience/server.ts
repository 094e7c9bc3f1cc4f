import type { ServiceRuntime } from '../common/service-runtime';
import type { AudienceConfig } from './config';
import type { AudienceDatabase } from './database';
import { BadgeService } from './domain/badge.service';
import { EntryBatchService } from './domain/entry-batch.service';
import { EntryService } from './domain/entry.service';
import { SegmentService } from './domain/segment.service';
import { UserAudienceService } from './domain/user-audience.service';
import { createAudienceGrpcService } from './grpc/audience.grpc';
import { applyEntryBatch, applyEntryBatchJob } from './jobs/apply-entry-batch.job';
import { entryBatchRelay } from './jobs/entry-batch-relay';
import { BullEntryBatchScheduler } from './jobs/entry-batch-scheduler';
import { BadgeRepository } from './repositories/badge.repository';
import { EntryBatchRepository } from './repositories/entry-batch.repository';
import { EntryRepository } from './repositories/entry.repository';
import { SegmentRepository } from './repositories/segment.repository';

/** The composition root (see manifest.ts): plain constructors, wired once. */
export async function composeAudienceService(runtime: ServiceRuntime<AudienceDatabase>, config: AudienceConfig) {
  const { db, queues, relay, clock, logger } = runtime;
  // Listening before the first wait, so no completion event is missed.
  await queues.queueEvents(applyEntryBatchJob.queue).waitUntilReady();

  const segmentRepository = new SegmentRepository(db);
  const entryRepository = new EntryRepository(db);
  const domain = {
    segments: new SegmentService(segmentRepository, clock),
    entries: new EntryService(segmentRepository, entryRepository, clock),
    batches: new EntryBatchService(segmentRepository, new EntryBatchRepository(db), new BullEntryBatchScheduler(queues), clock, logger),
    badges: new BadgeService(segmentRepository, new BadgeRepository(db), clock),
    userAudiences: new UserAudienceService(entryRepository),
  };

  runtime.process(applyEntryBatchJob, applyEntryBatch(domain.batches), config.BATCH_WORKER_CONCURRENCY);
  relay.register(entryBatchRelay(domain.batches));

  return createAudienceGrpcService(domain, logger);
}
