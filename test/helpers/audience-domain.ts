import type { Kysely } from 'kysely';
import { type AudienceDomain, type AudienceDomainDeps, buildAudienceDomain } from '../../services/audience/composition';
import type { AudienceDatabase } from '../../services/audience/database';
import { BullEntryBatchScheduler } from '../../services/audience/jobs/entry-batch-scheduler';
import { BullEvaluationScheduler } from '../../services/audience/jobs/evaluate-segment.job';
import { OutboxRelay } from '../../services/platform/outbox/relay';
import { QueueKit } from '../../services/platform/queue';
import { SERVICE_CATALOG } from '../../services/platform/service-catalog';
import { TEST_REDIS_URL } from '../setup/test-env';
import { TestClock } from './clock';
import { type DomainHarness, type HarnessOptions, openServiceDatabase } from './domain';
import { RecordingEntryBatchScheduler, RecordingEvaluationScheduler } from './fakes/audience-schedulers';
import { LogCapture } from './log-capture';
import { deleteKeys, newQueuePrefix } from './test-database';

/** The audience domain, its database and what it scheduled. */
export interface AudienceHarness extends DomainHarness<AudienceDomain, AudienceDatabase> {
  /** The batches and evaluations it scheduled (no worker reads them). */
  scheduled: { batches: RecordingEntryBatchScheduler; evaluations: RecordingEvaluationScheduler };
}

/**
 * The audience domain, without Redis. Batches and evaluations are scheduled on in-memory queues no
 * worker reads: a test applies a stored batch itself with `domain.batches.apply(id)`, the worker's
 * step, and so decides when it happens. Events stay in the outbox, where tests read them.
 */
export async function startAudienceDomain(options: HarnessOptions = {}): Promise<AudienceHarness> {
  const clock = options.clock ?? new TestClock();
  const logs = new LogCapture();
  const database = await openServiceDatabase<AudienceDatabase>(SERVICE_CATALOG.audience.schema, logs);
  const scheduled = { batches: new RecordingEntryBatchScheduler(), evaluations: new RecordingEvaluationScheduler() };
  const domain = build(database.db, clock, logs, {
    scheduler: scheduled.batches,
    evaluationScheduler: scheduled.evaluations,
    outbox: { wake: () => undefined },
  });
  return { domain, scheduled, db: database.db, sql: database.sql, databaseUrl: database.url, clock, logs, stop: database.close };
}

/**
 * The audience domain with its queues on Redis (a key prefix of their own) and its outbox relay over
 * them, for the tests of what the relay queues: events stay in the outbox until a test relays them
 * (`outbox.pass()`); the relay is not started, so the domain's wake-ups do nothing, and no worker
 * reads the queues.
 */
export async function startAudienceDomainWithQueues(
  options: HarnessOptions = {},
): Promise<DomainHarness<AudienceDomain, AudienceDatabase> & { outbox: OutboxRelay<AudienceDatabase>; queues: QueueKit }> {
  const clock = options.clock ?? new TestClock();
  const logs = new LogCapture();
  const database = await openServiceDatabase<AudienceDatabase>(SERVICE_CATALOG.audience.schema, logs);
  const prefix = newQueuePrefix();
  const queues = new QueueKit({ redisUrl: TEST_REDIS_URL, prefix, logger: logs.logger('queue') });
  await queues.ready();
  const outbox = new OutboxRelay(database.db, queues, {
    service: 'audience',
    clock,
    logger: logs.logger('outbox'),
    batchSize: 200,
    retentionMs: 168 * 3_600_000,
  });
  const domain = build(database.db, clock, logs, {
    scheduler: new BullEntryBatchScheduler(queues),
    evaluationScheduler: new BullEvaluationScheduler(queues),
    outbox,
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

/** The domain as the service composes it, on these queues and this outbox. */
function build(
  db: Kysely<AudienceDatabase>,
  clock: TestClock,
  logs: LogCapture,
  parts: Pick<AudienceDomainDeps, 'scheduler' | 'evaluationScheduler' | 'outbox'>,
): AudienceDomain {
  // The drainer is not started (no relay): a test matches pending users with domain.matching (onStart, then pass).
  return buildAudienceDomain({ db, clock, logger: logs.logger('audience'), ...parts, matchingDebounceMs: 0 });
}
