import { AudienceServiceService } from '../../gen/referral/audience/v1/audience';
import { type Clock, systemClock } from '../common/clock';
import { ensureDatabaseExists, openDatabase } from '../common/db/database';
import { migrateToLatest } from '../common/db/migrate';
import { startGrpcServer } from '../common/grpc/server';
import type { RunningProcess } from '../common/lifecycle';
import { createLogger, type Logger } from '../common/logger';
import { QueueKit } from '../common/queue';
import type { AudienceConfig } from './config';
import type { AudienceDatabase } from './database';
import { BadgeService } from './domain/badge.service';
import { EntryBatchService } from './domain/entry-batch.service';
import { EntryService } from './domain/entry.service';
import { SegmentService } from './domain/segment.service';
import { UserAudienceService } from './domain/user-audience.service';
import { AUDIENCE_SERVICE_NAME, createAudienceGrpcService } from './grpc/audience.grpc';
import { applyEntryBatch, applyEntryBatchJob } from './jobs/apply-entry-batch.job';
import { BullEntryBatchScheduler } from './jobs/entry-batch-scheduler';
import {
  REQUEUE_EVERY_MS,
  requeueStaleEntryBatches,
  requeueStaleEntryBatchesJob,
} from './jobs/requeue-stale-entry-batches.job';
import { audienceMigrations } from './migrations';
import { BadgeRepository } from './repositories/badge.repository';
import { EntryBatchRepository } from './repositories/entry-batch.repository';
import { EntryRepository } from './repositories/entry.repository';
import { SegmentRepository } from './repositories/segment.repository';

export const AUDIENCE_SCHEMA = 'audience';

export interface AudienceOverrides {
  clock?: Clock;
  logger?: Logger;
}

export interface RunningAudienceService extends RunningProcess {
  grpcPort: number;
}

/** The composition root: plain constructors, wired once. Used by main.ts and by the tests. */
export async function startAudienceService(
  config: AudienceConfig,
  overrides: AudienceOverrides = {},
): Promise<RunningAudienceService> {
  const logger = overrides.logger ?? createLogger({ service: 'audience', level: config.LOG_LEVEL });
  const clock = overrides.clock ?? systemClock;

  await ensureDatabaseExists(config.DATABASE_URL);
  const database = openDatabase<AudienceDatabase>({
    url: config.DATABASE_URL,
    schema: AUDIENCE_SCHEMA,
    poolMax: config.DB_POOL_MAX,
    applicationName: 'audience',
    logger,
  });
  await migrateToLatest(database.db, AUDIENCE_SCHEMA, audienceMigrations, logger);

  const queues = new QueueKit({ redisUrl: config.REDIS_URL, prefix: config.QUEUE_PREFIX, logger });
  await queues.ready();
  // Listening before the first wait, so no completion event is missed.
  await queues.queueEvents(applyEntryBatchJob.queue).waitUntilReady();

  const segmentRepository = new SegmentRepository(database.db);
  const entryRepository = new EntryRepository(database.db);
  const domain = {
    segments: new SegmentService(segmentRepository, clock),
    entries: new EntryService(segmentRepository, entryRepository, clock),
    batches: new EntryBatchService(
      segmentRepository,
      new EntryBatchRepository(database.db),
      new BullEntryBatchScheduler(queues),
      clock,
      logger,
    ),
    badges: new BadgeService(segmentRepository, new BadgeRepository(database.db), clock),
    userAudiences: new UserAudienceService(entryRepository),
  };

  if (config.RUN_WORKERS) {
    queues.process(applyEntryBatchJob, applyEntryBatch(domain.batches), config.BATCH_WORKER_CONCURRENCY);
    queues.process(requeueStaleEntryBatchesJob, requeueStaleEntryBatches(domain.batches, config.STALE_BATCH_AFTER_MS));
    await queues
      .queue(requeueStaleEntryBatchesJob.queue)
      .upsertJobScheduler('requeue-stale-entry-batches', { every: REQUEUE_EVERY_MS }, { name: requeueStaleEntryBatchesJob.queue, data: { payload: {} } });
  }

  const grpc = await startGrpcServer({
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    logger,
    services: [
      {
        name: AUDIENCE_SERVICE_NAME,
        definition: AudienceServiceService,
        implementation: createAudienceGrpcService(domain, logger),
      },
    ],
  });

  return {
    grpcPort: grpc.port,
    stop: async () => {
      await grpc.shutdown(config.SHUTDOWN_GRACE_MS);
      await queues.close();
      await database.close();
      logger.info('audience service stopped');
      logger.flush();
    },
  };
}
