import { type AudienceDomain, buildAudienceDomain } from '../../services/audience/composition';
import type { AudienceDatabase } from '../../services/audience/database';
import { BullEntryBatchScheduler } from '../../services/audience/jobs/entry-batch-scheduler';
import { BullEvaluationScheduler } from '../../services/audience/jobs/evaluate-segment.job';
import { OutboxRelay } from '../../services/common/outbox/relay';
import { QueueKit } from '../../services/common/queue';
import { SERVICE_CATALOG } from '../../services/common/service-catalog';
import { TEST_REDIS_URL } from '../setup/test-env';
import { TestClock } from './clock';
import { type DomainHarness, type HarnessOptions, openServiceDatabase } from './domain';
import { LogCapture } from './log-capture';
import { deleteKeys, newQueuePrefix } from './test-database';

/**
 * The audience domain. Batches are scheduled on a real queue (a Redis key prefix of their own) that
 * no worker reads: a test applies a stored batch itself with `domain.batches.apply(id)`, the
 * worker's step, and so decides when it happens. Events stay in the outbox until a test relays them
 * (`outbox.pass()`): the relay is not started, so the domain's wake-ups do nothing.
 */
export async function startAudienceDomain(
  options: HarnessOptions = {},
): Promise<DomainHarness<AudienceDomain, AudienceDatabase> & { outbox: OutboxRelay<AudienceDatabase>; queues: QueueKit }> {
  const clock = options.clock ?? new TestClock();
  const logs = new LogCapture();
  const database = await openServiceDatabase<AudienceDatabase>(SERVICE_CATALOG.audience.schema, logs);
  const prefix = newQueuePrefix();
  const queues = new QueueKit({ redisUrl: TEST_REDIS_URL, prefix, logger: logs.logger('queue') });
  await queues.ready();
  const logger = logs.logger('audience');
  const outbox = new OutboxRelay(database.db, queues, { service: 'audience', clock, logger: logs.logger('outbox'), batchSize: 200, retentionMs: 168 * 3_600_000 });
  const domain = buildAudienceDomain({
    db: database.db,
    clock,
    logger,
    scheduler: new BullEntryBatchScheduler(queues),
    evaluationScheduler: new BullEvaluationScheduler(queues),
    outbox,
    // The drainer is not started (no relay): a test matches pending users with domain.matching (onStart, then pass).
    matchingDebounceMs: 0,
  });
  return {
    domain,
    outbox,
    queues,
    db: database.db,
    sql: database.sql,
    databaseUrl: database.url,
    clock,
    logs,
    stop: async () => {
      await queues.close();
      await deleteKeys(TEST_REDIS_URL, `${prefix}:*`);
      await database.close();
    },
  };
}
