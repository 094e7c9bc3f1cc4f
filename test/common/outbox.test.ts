import { randomUUID } from 'node:crypto';
import { CompiledQuery } from 'kysely';
import { JobRelay } from '../../services/platform/job-relay';
import { appendOutboxEvents } from '../../services/platform/outbox/append';
import { consumerJob, deliverEvent, defineConsumer, eventProcessor } from '../../services/platform/outbox/consumer';
import type { EventJobData, NewOutboxEvent } from '../../services/platform/outbox/event';
import { failedEventRecovery } from '../../services/platform/outbox/recovery';
import { pendingRound } from '../../services/platform/outbox/relay';
import { evmAddress } from '../helpers/fixtures';
import { membershipConsumer, type OutboxProbe, startOutboxProbe } from '../helpers/outbox';
import { pollUntil } from '../helpers/poll';
import { deleteKeys } from '../helpers/stack';
import { TEST_REDIS_URL } from '../setup/test-env';

/**
 * The event outbox of services/platform/outbox on a probe service (test/helpers/outbox.ts): append in
 * the producer's transaction, the relay to each consumer's queue, and the consumer's exactly-once
 * effect, against the real PostgreSQL and Redis.
 */
describe('event outbox', () => {
  let probe: OutboxProbe;
  beforeAll(async () => {
    probe = await startOutboxProbe();
  });
  afterAll(() => probe.stop());

  const consumer = membershipConsumer();
  const job = consumer.job;
  const projectId = randomUUID();
  const added = (users: number[], segmentId = randomUUID()): NewOutboxEvent => ({
    type: 'audience.entry_added',
    projectId,
    payload: { segment_id: segmentId, kind: 'static', users: users.map((n) => ({ identifier: evmAddress(n), identifier_type: 'evm_address' })) },
  });
  const outboxRows = async (ids: string[]) =>
    (
      await probe.sql.query(
        `SELECT o.id, o.type, (SELECT max(r.relayed_at) FROM ${probe.schema}.outbox_relays r WHERE o.seq = ANY(r.seqs)) AS relayed_at,
                EXISTS (SELECT 1 FROM ${probe.schema}.outbox_pending p WHERE p.seq = o.seq) AS pending
         FROM ${probe.schema}.outbox o WHERE o.id = ANY($1) ORDER BY o.seq`,
        [ids],
      )
    ).rows;
  /** What a crash between queuing events and marking them relayed leaves: the events pending again. */
  const pendingAgain = (ids: Array<string | undefined>) =>
    probe.sql.query(
      `INSERT INTO ${probe.schema}.outbox_pending (seq) SELECT seq FROM ${probe.schema}.outbox WHERE id = ANY($1) ON CONFLICT DO NOTHING`,
      [ids],
    );
  const jobOf = (eventId: string) => probe.queues.queue(job.queue).getJob(`${eventId}-${consumer.name}`);
  const jobData = (id: string, event: NewOutboxEvent): EventJobData => ({
    id,
    type: event.type,
    projectId: event.projectId,
    payload: event.payload,
    createdAt: probe.clock.now().toISOString(),
  });
  const deliver = (data: EventJobData, which = consumer) => deliverEvent(probe.db, which, data, probe.clock, probe.logs.logger('consumer'));
  const processed = async (eventId: string) =>
    (await probe.sql.query(`SELECT outcome, note FROM ${probe.schema}.processed_events WHERE event_id = $1`, [eventId])).rows;
  const effectsOf = async (eventId: string) =>
    Number((await probe.sql.query(`SELECT count(*)::int AS n FROM ${probe.schema}.effects WHERE event_id = $1`, [eventId])).rows[0].n);

  describe('append and relay', () => {
    it('writes nothing, and relays nothing, when the producer rolls its transaction back', async () => {
      let ids: string[] = [];
      await expect(
        probe.db.transaction().execute(async (trx) => {
          ids = await appendOutboxEvents(trx, probe.clock.now(), [added([1, 2])]);
          throw new Error('the change failed');
        }),
      ).rejects.toThrow('the change failed');
      await probe.relay().pass();
      expect(ids).toHaveLength(1);
      expect(await outboxRows(ids)).toEqual([]);
      expect(await jobOf(ids[0]!)).toBeUndefined();
    });

    it('queues a committed event once per consumer under the id (event, consumer), with its payload, and marks it relayed', async () => {
      const event = added([3, 4]);
      const [id] = await probe.db.transaction().execute((trx) => appendOutboxEvents(trx, probe.clock.now(), [event]));
      const relay = probe.relay();
      await relay.pass();
      const queued = await jobOf(id!);
      expect(queued?.data.payload).toEqual({ ...jobData(id!, event), createdAt: probe.clock.now().toISOString() });
      expect((await outboxRows([id!]))[0]).toMatchObject({ relayed_at: probe.clock.now(), pending: false });
      // Nobody else subscribes to audience.entry_added: no other queue got it.
      const other = probe.queues.queue(consumerJob({ name: 'audience-application-approvals' }).queue);
      expect(await other.getJob(`${id}-audience-application-approvals`)).toBeUndefined();
    });

    it('relays twice (a crash between queuing and marking) without a second job', async () => {
      const [id] = await probe.db.transaction().execute((trx) => appendOutboxEvents(trx, probe.clock.now(), [added([5])]));
      await probe.relay().pass();
      await pendingAgain([id]);
      await probe.relay().pass();
      const queue = probe.queues.queue(job.queue);
      const jobs = (await queue.getJobs(['waiting'])).filter((queued) => queued.data.payload.id === id);
      expect(jobs).toHaveLength(1);
    });

    it('relays in rounds, in the order the events were written', async () => {
      const written: string[] = [];
      const events = Array.from({ length: 7 }, (_, i) => added([100 + i]));
      for (const event of events) {
        const [id] = await probe.db.transaction().execute((trx) => appendOutboxEvents(trx, probe.clock.now(), [event]));
        written.push(id!);
      }
      await probe.relay({ batchSize: 3 }).pass();
      const rows = await outboxRows(written);
      expect(rows.every((row: { relayed_at: Date | null; pending: boolean }) => row.relayed_at !== null && !row.pending)).toBe(true);
      const waiting = (await probe.queues.queue(job.queue).getJobs(['waiting'], 0, -1, true)).map((queued) => queued.data.payload.id as string);
      expect(waiting.filter((id) => written.includes(id))).toEqual(written);
    });

    it('relays again every kept event once Redis has lost its data (the marker is gone)', async () => {
      const [id] = await probe.db.transaction().execute((trx) => appendOutboxEvents(trx, probe.clock.now(), [added([200])]));
      await probe.relay().pass();
      // What a Redis that restarted empty looks like to this producer: its jobs and its marker gone.
      await probe.queues.queue(job.queue).obliterate({ force: true });
      await deleteKeys(TEST_REDIS_URL, `${probe.queuePrefix}:marker:*`);
      expect(await jobOf(id!)).toBeUndefined();

      await probe.relay().pass();
      expect((await jobOf(id!))?.data.payload.id).toBe(id);
      expect(probe.logs.text()).toContain('Redis lost its data');
      // The marker is back: the next pass replays nothing.
      await probe.queues.queue(job.queue).obliterate({ force: true });
      await probe.relay().pass();
      expect(await jobOf(id!)).toBeUndefined();
    });

    it('prunes relayed events past retention, never pending ones, and processed-event keys past twice that', async () => {
      const [relayedId, pendingId] = await probe.db
        .transaction()
        .execute((trx) => appendOutboxEvents(trx, probe.clock.now(), [added([300]), added([301])]));
      await probe.relay().pass();
      await pendingAgain([pendingId]);
      await deliver(jobData(relayedId!, added([300])));

      const retentionMs = 3_600_000;
      probe.clock.advance(retentionMs + 1);
      await probe.relay({ retentionMs, consumers: [] }).prune();
      expect((await outboxRows([relayedId!, pendingId!])).map((row: { id: string }) => row.id)).toEqual([pendingId]);
      expect(await processed(relayedId!)).toHaveLength(1);

      probe.clock.advance(retentionMs);
      await probe.relay({ retentionMs, consumers: [] }).prune();
      expect(await processed(relayedId!)).toEqual([]);
      expect((await outboxRows([pendingId!])).length).toBe(1);
    });

    it('reads a round by the pending events’ keys, never by scanning the retained outbox, even on stale statistics', async () => {
      const { schema } = probe;
      const retained = 30_000;
      const filler = 'x'.repeat(200);
      // Statistics that say 30,000 events are pending while 5 are, as a busy queue's always lag.
      await probe.sql.query(`ALTER TABLE ${schema}.outbox_pending SET (autovacuum_enabled = false)`);
      const { rows: inserted } = await probe.sql.query<{ seq: string }>(
        `INSERT INTO ${schema}.outbox (id, type, project_id, payload, created_at)
         SELECT gen_random_uuid(), 'audience.entry_added', gen_random_uuid(), jsonb_build_object('filler', $1::text), now() FROM generate_series(1, $2)
         RETURNING seq`,
        [filler, retained],
      );
      const seqs = inserted.map((row) => row.seq);
      try {
        await probe.sql.query(`ANALYZE ${schema}.outbox, ${schema}.outbox_pending`);
        await probe.sql.query(`DELETE FROM ${schema}.outbox_pending WHERE seq = ANY($1::bigint[])`, [seqs.slice(0, -5)]);

        const round = pendingRound(1_000).compile(probe.db);
        // On the service's own connections (its schema on the search_path), as the relay runs it.
        const explained = await probe.db.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
          CompiledQuery.raw(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${round.sql}`, [...round.parameters]),
        );
        const plan = explained.rows[0]!['QUERY PLAN'][0].Plan;
        const outboxReads = planNodes(plan).filter((node) => node['Relation Name'] === 'outbox');
        expect(outboxReads.map((node) => node['Node Type'])).toEqual(['Index Scan']);
        const outboxPages = Number((await probe.sql.query(`SELECT pg_relation_size('${schema}.outbox') / 8192 AS pages`)).rows[0].pages);
        expect(outboxPages).toBeGreaterThan(1_000);
        // The 5 events, each by its key: a few pages per event, whatever the outbox holds.
        expect(outboxReads[0]!['Shared Hit Blocks'] + outboxReads[0]!['Shared Read Blocks']).toBeLessThan(30);
        const { rows } = await pendingRound(1_000).execute(probe.db);
        expect(rows.map((row) => String(row.seq))).toEqual(expect.arrayContaining(seqs.slice(-5)));
      } finally {
        await probe.sql.query(`DELETE FROM ${schema}.outbox_pending WHERE seq = ANY($1::bigint[])`, [seqs]);
        await probe.sql.query(`DELETE FROM ${schema}.outbox WHERE seq = ANY($1::bigint[])`, [seqs]);
        await probe.sql.query(`ALTER TABLE ${schema}.outbox_pending RESET (autovacuum_enabled)`);
      }
    });
  });

  describe('consumers', () => {
    it('applies a redelivered event once', async () => {
      const id = randomUUID();
      const data = jobData(id, added([400, 401]));
      expect(await deliver(data)).toBe('handled');
      expect(await deliver(data)).toBe('duplicate');
      expect(await effectsOf(id)).toBe(2);
      expect(await processed(id)).toEqual([{ outcome: 'handled', note: null }]);
    });

    it('applies an event delivered 20 times at once exactly once', async () => {
      const id = randomUUID();
      const data = jobData(id, added([410, 411, 412]));
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => deliver(data)));
      expect(outcomes.filter((outcome) => outcome === 'handled')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome === 'duplicate')).toHaveLength(19);
      expect(await effectsOf(id)).toBe(3);
    });

    it('keeps nothing of a delivery whose handler fails, so the retry applies it', async () => {
      const id = randomUUID();
      const data = jobData(id, added([420]));
      let failures = 1;
      const flaky = membershipConsumer(async (trx, event) => {
        await trx.insertInto('effects').values({ event_id: event.id, event_type: event.type, identifier: 'partial' }).execute();
        if (failures-- > 0) throw new Error('the database hiccuped');
      });
      await expect(deliver(data, flaky)).rejects.toThrow('the database hiccuped');
      expect(await processed(id)).toEqual([]);
      expect(await effectsOf(id)).toBe(0);
      expect(await deliver(data, flaky)).toBe('handled');
      expect(await effectsOf(id)).toBe(1);
    });

    it('records an event its handler ignores, with the reason, and does not retry it', async () => {
      const id = randomUUID();
      const ignoring = membershipConsumer(async () => ({ ignored: 'the segment is gone' }));
      expect(await deliver(jobData(id, added([430])), ignoring)).toBe('ignored');
      expect(await processed(id)).toEqual([{ outcome: 'ignored', note: 'the segment is gone' }]);
      expect(await deliver(jobData(id, added([430])))).toBe('duplicate');
      expect(await effectsOf(id)).toBe(0);
    });

    it('records, without handling, an event whose payload breaks its contract or whose type it does not consume', async () => {
      const broken = randomUUID();
      expect(await deliver({ ...jobData(broken, added([440])), payload: { segment_id: 'nope', users: [] } })).toBe('ignored');
      expect(await processed(broken)).toEqual([
        { outcome: 'ignored', note: expect.stringContaining('does not match the contract of audience.entry_added') },
      ]);
      const foreign = randomUUID();
      expect(await deliver({ ...jobData(foreign, added([441])), type: 'claim.unknown' })).toBe('ignored');
      expect(await processed(foreign)).toEqual([
        { outcome: 'ignored', note: expect.stringContaining('does not consume events of type claim.unknown') },
      ]);
      expect((await effectsOf(broken)) + (await effectsOf(foreign))).toBe(0);
    });

    it('tries again an event recorded as failed (given up earlier) when it is delivered again', async () => {
      const id = randomUUID();
      await probe.sql.query(
        `INSERT INTO ${probe.schema}.processed_events (consumer, event_id, event_type, outcome, note, processed_at) VALUES ($1, $2, 'audience.entry_added', 'failed', 'kept failing', now())`,
        [consumer.name, id],
      );
      expect(await deliver(jobData(id, added([450])))).toBe('handled');
      expect(await processed(id)).toEqual([{ outcome: 'handled', note: null }]);
      expect(await effectsOf(id)).toBe(1);
    });

    it('refuses a consumer that the catalog does not list with the same event types', () => {
      expect(() => defineConsumer({ name: 'nobody', eventTypes: ['audience.entry_added'], handle: async () => undefined })).toThrow(
        'services/platform/events/consumers.ts',
      );
      expect(() =>
        defineConsumer({ name: 'agency-audience-memberships', eventTypes: ['audience.entry_added'], handle: async () => undefined }),
      ).toThrow('audience.entry_added');
    });
  });

  it('puts a consumer job that failed for good back once, then records the event as failed and drops the job', async () => {
    // One attempt per job, so the test needs no backoff to pass.
    const failing = { ...consumer, job: { ...job, options: { ...job.options, attempts: 1 } } };
    const relay = new JobRelay(probe.queues, { intervalMs: 60_000, maxRequeues: 1, logger: probe.logs.logger('job-relay') });
    relay.register(failedEventRecovery(probe.db, probe.queues, failing, probe.clock));
    // Only this test's job in the queue (the relay tests above left theirs waiting).
    await probe.queues.queue(job.queue).obliterate({ force: true });
    let runs = 0;
    const worker = probe.queues.process(failing.job, async () => {
      runs += 1;
      throw new Error('the projection table is locked');
    });
    try {
      const id = randomUUID();
      await probe.queues.enqueue(failing.job, jobData(id, added([600])));
      const jobId = `${id}-${consumer.name}`;
      const failed = (requeues: number) =>
        pollUntil(
          async () => {
            const snapshot = await probe.queues.inspect(failing.job, jobId);
            return snapshot?.state === 'failed' && snapshot.requeues === requeues;
          },
          { timeoutMs: 10_000, what: `the job to fail (requeued ${requeues} times)` },
        );
      await failed(0);
      await relay.runPass();
      await failed(1);
      expect(await processed(id)).toEqual([]);
      await relay.runPass();
      expect(await processed(id)).toEqual([{ outcome: 'failed', note: expect.stringContaining('the projection table is locked') }]);
      expect(await probe.queues.inspect(failing.job, jobId)).toBeUndefined();
      expect(runs).toBe(2);
      expect(probe.logs.text()).toContain('relay gave up on work whose job kept failing');
    } finally {
      await worker.close();
    }
  });

  it('carries events from a commit to the consumer’s worker, each applied once, however often relayed', async () => {
    const worker = probe.queues.process(job, eventProcessor(probe.db, consumer, probe.clock, probe.logs.logger('consumer')), 4);
    try {
      const relay = probe.relay({ batchSize: 7 });
      const ids: string[] = [];
      for (let i = 0; i < 10; i += 1) {
        ids.push(
          ...(await probe.db
            .transaction()
            .execute((trx) => appendOutboxEvents(trx, probe.clock.now(), [added([1_000 + 2 * i, 1_001 + 2 * i]), added([5_000 + i])]))),
        );
        if (i % 3 === 0) await pendingAgain(ids);
        await relay.pass();
      }
      await pollUntil(
        async () =>
          (await probe.sql.query(`SELECT count(*)::int AS n FROM ${probe.schema}.processed_events WHERE event_id = ANY($1)`, [ids])).rows[0].n ===
          ids.length,
        {
          timeoutMs: 15_000,
          what: 'the worker to process all 20 events',
        },
      );
      const rows = await probe.sql.query(
        `SELECT count(*)::int AS n, count(DISTINCT identifier)::int AS users FROM ${probe.schema}.effects WHERE event_id = ANY($1)`,
        [ids],
      );
      expect(rows.rows[0]).toEqual({ n: 30, users: 30 });
    } finally {
      await worker.close();
    }
  });
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

/** Every node of an EXPLAIN (FORMAT JSON) plan. */
function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)];
}
