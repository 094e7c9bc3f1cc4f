import type { EventType } from '../events/contracts';
import type { ServiceRuntime } from '../service-runtime';
import { type EventConsumer, eventProcessor } from './consumer';
import type { EventJobData } from './event';
import { failedEventRecovery } from './recovery';
import { OutboxRelay } from './relay';
import type { OutboxTables } from './tables';

/** The variables of the outbox (serviceEnv in ../config.ts). */
export interface OutboxConfig {
  OUTBOX_RELAY_BATCH: number;
  OUTBOX_RETENTION_HOURS: number;
}

/**
 * A service's outbox relay, run by its job relay (where RUN_WORKERS is on). Give the domain its
 * `wake` to call after each commit that appended events.
 */
export function startOutboxRelay<DB extends OutboxTables>(runtime: ServiceRuntime<DB>, config: OutboxConfig): OutboxRelay<DB> {
  const relay = new OutboxRelay(runtime.db, runtime.queues, {
    service: runtime.name,
    clock: runtime.clock,
    logger: runtime.logger,
    batchSize: config.OUTBOX_RELAY_BATCH,
    retentionMs: config.OUTBOX_RETENTION_HOURS * 3_600_000,
  });
  runtime.relay.participate(relay);
  return relay;
}

/**
 * Runs a consumer in this service: its queue's worker (the job must be in the service's manifest)
 * and the relay's recovery of its failed jobs.
 */
export function registerConsumer<DB extends OutboxTables, T extends EventType>(
  runtime: ServiceRuntime<DB>,
  consumer: EventConsumer<DB, T>,
  concurrency = 2,
  /** After each delivery, once its transaction committed (also for a duplicate; not when its shortcut found nothing to do): e.g. queue the work it stored. */
  afterEach?: (data: EventJobData) => Promise<void>,
): void {
  const anyType = consumer as unknown as EventConsumer<DB, EventType>;
  runtime.process(consumer.job, eventProcessor(runtime.db, anyType, runtime.clock, runtime.logger, afterEach), concurrency);
  runtime.relay.register(failedEventRecovery(runtime.db, runtime.queues, anyType, runtime.clock));
}
