import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { type Database, openDatabase } from '../../services/platform/db/database';
import { defineConsumer, type EventConsumer, type HandleResult } from '../../services/platform/outbox/consumer';
import type { OutboxEventOf } from '../../services/platform/outbox/event';
import { OutboxRelay, type OutboxRelayOptions } from '../../services/platform/outbox/relay';
import { createOutboxTables, type OutboxTables, splitOutboxRelayState } from '../../services/platform/outbox/tables';
import { QueueKit } from '../../services/platform/queue';
import { TEST_REDIS_URL } from '../setup/test-env';
import { TestClock } from './clock';
import { LogCapture } from './log-capture';
import { createTestDatabase, deleteKeys, newQueuePrefix } from './test-database';

/**
 * A stand-in service for tests of the event outbox: a schema of its own (`probe_<n>`) with the
 * outbox tables and an `effects` table its consumers write to, one row per (event, user) handled,
 * with no unique key: an event applied twice shows as twice the rows. It can produce (its outbox,
 * its relay) and consume (its processed_events), over a test database and Redis prefix of its own
 * or over a stack's.
 */
export interface ProbeDatabase extends OutboxTables {
  effects: { event_id: string; event_type: string; identifier: string };
}

export interface OutboxProbe {
  schema: string;
  db: Kysely<ProbeDatabase>;
  sql: pg.Pool;
  queues: QueueKit;
  queuePrefix: string;
  clock: TestClock;
  logs: LogCapture;
  relay(options?: Partial<OutboxRelayOptions>): OutboxRelay<ProbeDatabase>;
  /** Rows of `effects`, as `${event_type} ${identifier}`, sorted. */
  effects(): Promise<string[]>;
  stop(): Promise<void>;
}

let probes = 0;

export async function startOutboxProbe(options: { databaseUrl?: string; redisUrl?: string; queuePrefix?: string } = {}): Promise<OutboxProbe> {
  const database = options.databaseUrl ? undefined : await createTestDatabase();
  const url = options.databaseUrl ?? database!.url;
  const schema = `probe_${process.pid}_${(probes += 1)}`;
  const logs = new LogCapture();
  const opened: Database<ProbeDatabase> = openDatabase<ProbeDatabase>({
    url,
    schema,
    poolMax: 8,
    applicationName: 'test-outbox-probe',
    logger: logs.logger('db'),
  });
  await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(opened.db);
  await createOutboxTables(opened.db as unknown as Kysely<unknown>);
  await splitOutboxRelayState(opened.db as unknown as Kysely<unknown>);
  await sql`CREATE TABLE effects (event_id uuid NOT NULL, event_type text NOT NULL, identifier text NOT NULL)`.execute(opened.db);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => undefined);
  const redisUrl = options.redisUrl ?? TEST_REDIS_URL;
  const queuePrefix = options.queuePrefix ?? newQueuePrefix();
  const queues = new QueueKit({
    redisUrl,
    prefix: queuePrefix,
    logger: logs.logger('queue'),
    worker: { lockDurationMs: 3_000, stalledIntervalMs: 1_000 },
  });
  await queues.ready();
  const clock = new TestClock();
  return {
    schema,
    db: opened.db,
    sql: pool,
    queues,
    queuePrefix,
    clock,
    logs,
    relay: (overrides = {}) =>
      new OutboxRelay(opened.db, queues, {
        service: schema,
        clock,
        logger: logs.logger('relay'),
        batchSize: 100,
        retentionMs: 24 * 3_600_000,
        ...overrides,
      }),
    effects: async () =>
      (await opened.db.selectFrom('effects').select(['event_type', 'identifier']).execute())
        .map((row) => `${row.event_type} ${row.identifier}`)
        .sort(),
    stop: async () => {
      await queues.close();
      if (!options.queuePrefix) await deleteKeys(redisUrl, `${queuePrefix}:*`);
      await opened.close();
      // In a stack's database, the probe's schema goes with it; otherwise the whole database does.
      if (!database) await pool.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`).catch(() => undefined);
      await pool.end();
      if (database) await database.drop();
    },
  };
}

export type MembershipEvent = OutboxEventOf<
  'audience.entry_added' | 'audience.entry_removed' | 'audience.segment_deleted' | 'audience.memberships.published'
>;

/**
 * The catalog's membership consumer (the agency's, in production) as the probe runs it: by default
 * one `effects` row per user of each event; `handle` replaces that.
 */
export function membershipConsumer(
  handle?: (trx: Kysely<ProbeDatabase>, event: MembershipEvent) => Promise<HandleResult>,
): EventConsumer<ProbeDatabase, MembershipEvent['type']> {
  return defineConsumer<ProbeDatabase, MembershipEvent['type']>({
    name: 'agency-audience-memberships',
    eventTypes: ['audience.entry_added', 'audience.entry_removed', 'audience.segment_deleted', 'audience.memberships.published'],
    handle: handle ?? recordEffects,
  });
}

export async function recordEffects(trx: Kysely<ProbeDatabase>, event: MembershipEvent): Promise<HandleResult> {
  const identifiers =
    event.type === 'audience.segment_deleted'
      ? [event.payload.segment_id]
      : event.type === 'audience.memberships.published'
        ? [event.payload.user.identifier]
        : event.payload.users.map((user) => user.identifier);
  await trx
    .insertInto('effects')
    .values(identifiers.map((identifier) => ({ event_id: event.id, event_type: event.type, identifier })))
    .execute();
}
