import { randomUUID } from 'node:crypto';
import { appendOutboxEvents } from '../../services/platform/outbox/append';
import { eventProcessor } from '../../services/platform/outbox/consumer';
import type { NewOutboxEvent } from '../../services/platform/outbox/event';
import type { ServiceProcess } from '../helpers/faults/service-process';
import { useFaultStack } from '../helpers/faults/use-fault-stack';
import { createProject, createSegment, evmAddress, type TestProject } from '../helpers/fixtures';
import { membershipConsumer, type OutboxProbe, startOutboxProbe } from '../helpers/outbox';
import { pollUntil } from '../helpers/poll';

/**
 * The event outbox through process deaths and Redis loss, on real processes: the audience service
 * produces audience.entry_added while it ingests batches and is killed (SIGKILL) mid-relay, or
 * loses Redis (started again empty); a consumer in this test process (the agency's membership
 * consumer, writing one row per user per event it applies) must end with every user exactly once.
 * And the audience service consuming approvals is killed mid-stream: every approval lands once.
 */
describe('events between services through process deaths and Redis loss', () => {
  const stack = useFaultStack({ services: ['audience'], ownRedis: true });
  let audience: ServiceProcess;
  let project: TestProject;
  let consumer: OutboxProbe;
  beforeAll(async () => {
    audience = stack.service('audience');
    project = await createProject(stack.gateway);
    consumer = await startOutboxProbe({ databaseUrl: stack.databaseUrl, redisUrl: stack.redisUrl, queuePrefix: stack.queuePrefix });
    // Stopped with the stack, before its Redis is: a worker closing against a Redis that is gone would wait for it.
    stack.atStop(() => consumer.stop());
    const memberships = membershipConsumer();
    const worker = consumer.queues.process(
      memberships.job,
      eventProcessor(consumer.db, memberships, consumer.clock, consumer.logs.logger('consumer')),
      4,
    );
    stack.atStop(() => worker.close());
  });

  const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => evmAddress(from + i));
  const submit = (segmentId: string, identifiers: string[]) =>
    stack.gateway.api.post(`/v1/audience-segments/${segmentId}/entries/batch`, {
      key: project.keys.service,
      body: { entries: identifiers.map((identifier) => ({ identifier, identifier_type: 'evm_address' })) },
    });
  const query = async <T>(text: string, params: unknown[]) => (await stack.db.query(text, params)).rows as T[];
  const batchStates = (segmentId: string) =>
    query<{ status: string }>('SELECT status FROM audience.entry_batches WHERE segment_id = $1', [segmentId]);
  const segmentEvents = (segmentId: string) =>
    query<{ id: string; relayed: boolean }>(
      `SELECT o.id, NOT EXISTS (SELECT 1 FROM audience.outbox_pending p WHERE p.seq = o.seq) AS relayed FROM audience.outbox o WHERE o.payload->>'segment_id' = $1 ORDER BY o.seq`,
      [segmentId],
    );

  const untilMidIngest = (segmentId: string) =>
    pollUntil(
      async () => {
        const [states, events] = await Promise.all([batchStates(segmentId), segmentEvents(segmentId)]);
        return events.length > 0 && states.some((row) => row.status === 'queued' || row.status === 'active');
      },
      { timeoutMs: 30_000, intervalMs: 5, what: 'events written while batches are still being applied' },
    );

  /** Every batch applied, every event relayed and consumed; then each user was applied exactly once. */
  async function expectEachUserOnce(segmentId: string, submitted: string[][]) {
    const distinct = new Set(submitted.flat());
    const events = await pollUntil(
      async () => {
        const states = await batchStates(segmentId);
        if (states.length !== submitted.length || !states.every((row) => row.status === 'completed')) return undefined;
        const written = await segmentEvents(segmentId);
        if (!written.every((event) => event.relayed)) return undefined;
        const consumed = await consumer.sql.query(`SELECT count(*)::int AS n FROM ${consumer.schema}.processed_events WHERE event_id = ANY($1)`, [
          written.map((e) => e.id),
        ]);
        return consumed.rows[0].n === written.length ? written : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, what: 'every batch applied and every event consumed' },
    );
    const ids = events.map((event) => event.id);
    const outcomes = await consumer.sql.query(
      `SELECT outcome, count(*)::int AS n FROM ${consumer.schema}.processed_events WHERE event_id = ANY($1) GROUP BY outcome`,
      [ids],
    );
    expect(outcomes.rows).toEqual([{ outcome: 'handled', n: ids.length }]);
    const effects = await consumer.sql.query(
      `SELECT count(*)::int AS n, count(DISTINCT identifier)::int AS users FROM ${consumer.schema}.effects WHERE event_id = ANY($1)`,
      [ids],
    );
    expect(effects.rows[0]).toEqual({ n: distinct.size, users: distinct.size });
    const entries = await query<{ n: number }>('SELECT count(*)::int AS n FROM audience.entries WHERE segment_id = $1', [segmentId]);
    expect(entries[0]!.n).toBe(distinct.size);
    return events;
  }

  it('delivers every entry event exactly once when the producer is killed (SIGKILL) mid-relay and restarted', async () => {
    const segment = await createSegment(stack.gateway, project);
    const submitted = Array.from({ length: 8 }, (_, i) => range(i * 4_000, 5_000));
    const accepted = await Promise.all(submitted.map((identifiers) => submit(segment.id, identifiers)));
    expect(accepted.map((response) => response.status)).toEqual(accepted.map(() => 202));

    await untilMidIngest(segment.id);
    await audience.kill();
    await audience.restart();

    const events = await expectEachUserOnce(segment.id, submitted);
    // One event per batch that added someone; every batch here adds someone new.
    expect(events).toHaveLength(submitted.length);
  }, 120_000);

  it('delivers every entry event exactly once after Redis is lost mid-stream and comes back empty, without a restart', async () => {
    const segment = await createSegment(stack.gateway, project);
    const submitted = Array.from({ length: 8 }, (_, i) => range(500_000 + i * 4_000, 5_000));
    const accepted = await Promise.all(submitted.map((identifiers) => submit(segment.id, identifiers)));
    expect(accepted.map((response) => response.status)).toEqual(accepted.map(() => 202));

    await untilMidIngest(segment.id);
    await stack.redis!.stop();
    await stack.redis!.startEmpty();

    await expectEachUserOnce(segment.id, submitted);
    expect(audience.linesWith('Redis lost its data').length).toBeGreaterThan(0);
  }, 120_000);

  it('adds every approved user exactly once when the consuming audience process is killed (SIGKILL) mid-stream', async () => {
    const segment = await createSegment(stack.gateway, project);
    const producer = await startOutboxProbe({ databaseUrl: stack.databaseUrl, redisUrl: stack.redisUrl, queuePrefix: stack.queuePrefix });
    try {
      const users = range(900_000, 1_500);
      const events: NewOutboxEvent[] = users.map((identifier) => ({
        type: 'agency.application.approved',
        projectId: project.id,
        payload: {
          project_id: project.id,
          application_id: randomUUID(),
          audience_id: segment.id,
          user: { identifier, identifier_type: 'evm_address' },
        },
      }));
      const ids = await producer.db.transaction().execute((trx) => appendOutboxEvents(trx, producer.clock.now(), events));
      await producer.relay({ batchSize: 500 }).pass();
      const processed = async () =>
        (await query<{ n: number }>(`SELECT count(*)::int AS n FROM audience.processed_events WHERE event_id = ANY($1)`, [ids]))[0]!.n;

      await pollUntil(async () => (await processed()) >= 50, {
        timeoutMs: 30_000,
        intervalMs: 5,
        what: 'the audience service to consume some approvals',
      });
      expect(await processed()).toBeLessThan(users.length);
      await audience.kill();
      await audience.restart();

      await pollUntil(async () => (await processed()) === users.length, { timeoutMs: 60_000, intervalMs: 100, what: 'every approval consumed' });
      const outcomes = await query<{ outcome: string; n: number }>(
        'SELECT outcome, count(*)::int AS n FROM audience.processed_events WHERE event_id = ANY($1) GROUP BY outcome',
        [ids],
      );
      expect(outcomes).toEqual([{ outcome: 'handled', n: users.length }]);
      const entries = await query<{ n: number; users: number }>(
        'SELECT count(*)::int AS n, count(DISTINCT identifier)::int AS users FROM audience.entries WHERE segment_id = $1',
        [segment.id],
      );
      expect(entries[0]).toEqual({ n: users.length, users: users.length });
      const counted = await query<{ n: string }>('SELECT entries_count AS n FROM audience.segments WHERE id = $1', [segment.id]);
      expect(Number(counted[0]!.n)).toBe(users.length);
      // Each added user was announced once (one entry_added per approval that added someone).
      const announced = await query<{ n: number }>(`SELECT count(*)::int AS n FROM audience.outbox WHERE payload->>'segment_id' = $1`, [segment.id]);
      expect(announced[0]!.n).toBe(users.length);
    } finally {
      await producer.stop();
    }
  }, 120_000);
});
