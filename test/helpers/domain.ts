import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { type Database, openDatabase } from '../../services/platform/db/database';
import type { EventPayload, EventType } from '../../services/platform/events/contracts';
import { deliverEvent, type EventConsumer } from '../../services/platform/outbox/consumer';
import type { EventJobData } from '../../services/platform/outbox/event';
import type { OutboxTables } from '../../services/platform/outbox/tables';
import type { TestClock } from './clock';
import { lateBound } from './late-bound';
import type { LogCapture } from './log-capture';
import { createTestDatabase } from './test-database';

/**
 * The medium tier (test/medium): a service's domain, built by the same composition function its
 * server.ts uses, with its real repositories on a database cloned from the run's migrated template
 * and the test clock. No gRPC, no HTTP: many-case rules are tested here, fast; what crosses a
 * boundary (status codes, bodies, auth) stays in the HTTP tests. Each service's harness has a file of
 * its own (audience-, tax-, agency-, claim-, webhooks-domain.ts), so a test loads that service alone;
 * the services a domain asks are in-memory fakes (test/helpers/fakes) or, for the agency, the real
 * audience domain in process.
 */
export interface DomainHarness<D, DB> {
  domain: D;
  /** The service's own schema, through Kysely, as its repositories see it. */
  db: Kysely<DB>;
  /** The whole test database (every schema), to check what was (not) written. */
  sql: pg.Pool;
  /** The test database's URL, for a test that needs connections of its own. */
  databaseUrl: string;
  clock: TestClock;
  logs: LogCapture;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  clock?: TestClock;
}

/**
 * The usual set-up of a medium file, as hooks: the harness `start` answers (e.g. `() => startClaimDomain()`),
 * started before the file's tests and stopped after them. Call it inside the file's describe, before the
 * file's own hooks. Returns a stand-in that answers with the started harness once the file's beforeAll
 * hooks run (as useStackWithProject does for the HTTP tests).
 */
export function useDomainHarness<H extends { stop(): Promise<void> }>(start: () => Promise<H>): H {
  let started: H | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    await started?.stop();
  });
  return lateBound(() => {
    if (!started) throw new Error('the harness is not started yet (it was asked for outside the tests and hooks)');
    return started;
  });
}

/** The rows a query answers on the harness's whole test database (`sql`), to check what was (not) written. */
export function rowsOf(harness: { sql: pg.Pool }) {
  return <T extends Record<string, unknown>>(text: string, values: unknown[]) => harness.sql.query<T>(text, values).then((result) => result.rows);
}

/** The service's schema on a database of its own, cloned from the run's template, and a pool on the whole database. */
export async function openServiceDatabase<DB>(schema: string, logs: LogCapture) {
  const database = await createTestDatabase();
  const opened: Database<DB> = openDatabase<DB>({
    url: database.url,
    schema,
    poolMax: 4,
    applicationName: 'test-medium',
    logger: logs.logger('db'),
    // A race test queues a thousand requests on these four connections; on a loaded machine the last
    // one's turn came after the 10 s default (CI, 2026-11-28). Jest's own timeout still bounds a leak.
    acquireTimeoutMs: 45_000,
  });
  const sql = new pg.Pool({ connectionString: database.url, max: 2 });
  // Dropping the database at stop() ends this pool's connections: not an error of the next test.
  sql.on('error', () => undefined);
  return {
    db: opened.db,
    sql,
    url: database.url,
    close: async () => {
      await opened.close();
      await sql.end();
      await database.drop();
    },
  };
}

/** An event as the relay hands it to a consumer, created at the harness clock's now (another `id` replays a payload as a new event). */
export function eventNow<T extends EventType>(
  harness: { clock: TestClock },
  projectId: string,
  type: T,
  payload: EventPayload<T>,
  id: string = randomUUID(),
): EventJobData {
  return { id, type, projectId, payload, createdAt: harness.clock.now().toISOString() };
}

/** Hands one event to `consumer` as its worker does, on the harness's database, clock and logs. */
export function deliverTo<DB extends OutboxTables>(harness: DomainHarness<unknown, DB>, consumer: EventConsumer<DB, EventType>, data: EventJobData) {
  return deliverEvent(harness.db, consumer, data, harness.clock, harness.logs.logger('consumer'));
}
