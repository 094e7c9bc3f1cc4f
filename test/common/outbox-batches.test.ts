import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import { sql } from 'kysely';
import { consumerJob, defineConsumer, type EventConsumer, eventProcessor } from '../../services/platform/outbox/consumer';
import { appendOutboxEvents } from '../../services/platform/outbox/append';
import { EVENT_CONSUMERS } from '../../services/platform/events/consumers';
import {
  type ConsumerJobData,
  consumerJobData,
  type EventJobData,
  type NewOutboxEvent,
  type OutboxEventOf,
  packEvents,
} from '../../services/platform/outbox/event';
import { failedEventRecovery } from '../../services/platform/outbox/recovery';
import { evmAddress } from '../helpers/fixtures';
import { type OutboxProbe, type ProbeDatabase, recordEffects, startOutboxProbe } from '../helpers/outbox';

type FanOutEvent = OutboxEventOf<(typeof EVENT_CONSUMERS)['webhooks-fan-out']['eventTypes'][number]>;

/**
 * Events of the batched types (one per conversion) travel to each consumer as one job per relay
 * round; the consumer still applies, records and retries each event on its own.
 */
describe('event outbox: batched event types', () => {
  let probe: OutboxProbe;
  beforeAll(async () => {
    probe = await startOutboxProbe();
  });
  afterAll(() => probe.stop());

  const projectId = randomUUID();
  /** Conversions whose next deliveries throw, and how many of them. */
  const failNext = new Map<string, number>();
  const failing = (id: string) => {
    const left = failNext.get(id) ?? 0;
    if (left > 0) failNext.set(id, left - 1);
    return left > 0;
  };
  // The catalog's webhooks consumer as the probe runs it: one effects row per conversion (or per user of an entry event).
  const consumer: EventConsumer<ProbeDatabase, FanOutEvent['type']> = defineConsumer<ProbeDatabase, FanOutEvent['type']>({
    name: 'webhooks-fan-out',
    eventTypes: EVENT_CONSUMERS['webhooks-fan-out'].eventTypes,
    handle: async (trx, event) => {
      if (event.type === 'audience.entry_added' || event.type === 'audience.entry_removed') return recordEffects(trx, event);
      if (event.type !== 'claim.conversion.processed') return;
      if (failing(event.payload.conversion_id)) throw new Error(`conversion ${event.payload.conversion_id} cannot be applied now`);
      // The transaction that applied it, beside the conversion.
      await trx
        .insertInto('effects')
        .values({ event_id: event.id, event_type: event.type, identifier: sql<string>`${event.payload.conversion_id} || ' ' || txid_current()` })
        .execute();
    },
  });
  // Its shortcut records, in one statement, the conversions whose id says nobody wants them.
  consumer.shortcut = async (db, event, { now }) => {
    if (event.type !== 'claim.conversion.processed' || !event.payload.conversion_id.startsWith('skip-')) return false;
    const recorded = await db
      .insertInto('processed_events')
      .values({ consumer: consumer.name, event_id: event.id, event_type: event.type, outcome: 'handled', note: null, processed_at: now })
      .onConflict((conflict) => conflict.columns(['consumer', 'event_id']).doNothing())
      .returning('event_id')
      .execute();
    return recorded.length > 0;
  };
  const job = consumerJob(consumer);
  const user = (n: number) => ({ identifier: evmAddress(n), identifier_type: 'evm_address' as const });
  const conversion = (id: string): NewOutboxEvent => ({
    type: 'claim.conversion.processed',
    projectId,
    payload: {
      conversion_id: id,
      name: 'trade',
      status: 'processed',
      occurred_at: '2026-11-22T00:00:00.000Z',
      user: user(1),
      affiliate: null,
      master: null,
      tier_id: null,
      volume_usd: '10.5',
      revenue_usd: null,
      currency_id: randomUUID(),
      payouts: [{ kind: 'end_user_payout', user: user(1), amount: '5' }],
    },
  });
  const entryAdded = (n: number): NewOutboxEvent => ({
    type: 'audience.entry_added',
    projectId,
    payload: { segment_id: randomUUID(), kind: 'static', users: [user(n)] },
  });
  const append = (events: NewOutboxEvent[]) => probe.db.transaction().execute((trx) => appendOutboxEvents(trx, probe.clock.now(), events));
  /** The jobs of a queue, as stored (`raw`) and as the worker reads them (the consumer job's schema, which unpacks a packed batch). */
  const queuedJobs = async (queue: string) =>
    (await probe.queues.queue(queue).getJobs(['waiting', 'delayed', 'failed'])).map((queued) => ({
      id: queued.id,
      raw: queued.data.payload as Record<string, unknown>,
      data: consumerJobData.parse(queued.data.payload),
    }));
  const processed = async (ids: string[]) =>
    (
      await probe.sql.query(
        `SELECT event_id, outcome FROM ${probe.schema}.processed_events WHERE consumer = $1 AND event_id = ANY($2) ORDER BY event_id`,
        [consumer.name, ids],
      )
    ).rows;
  const transactionsOf = async (ids: string[]) =>
    new Set(
      (await probe.sql.query(`SELECT split_part(identifier, ' ', 2) AS txid FROM ${probe.schema}.effects WHERE event_id = ANY($1)`, [ids])).rows.map(
        (row) => row.txid,
      ),
    ).size;
  const effectCount = async (ids: string[]) =>
    Number((await probe.sql.query(`SELECT count(*)::int AS n FROM ${probe.schema}.effects WHERE event_id = ANY($1)`, [ids])).rows[0].n);
  const run = (data: ConsumerJobData) =>
    eventProcessor(probe.db, consumer, probe.clock, probe.logs.logger('consumer'))(data, {} as Job, new AbortController().signal);

  beforeEach(async () => {
    await probe.queues.queue(job.queue).obliterate({ force: true });
    await probe.queues.queue(consumerJob({ name: 'agency-audience-memberships' }).queue).obliterate({ force: true });
  });

  it('queues a round’s conversion events as one job per consumer, in order, beside one job per other event', async () => {
    const ids = await append([conversion('c-1'), conversion('c-2'), entryAdded(7), conversion('c-3')]);
    await probe.relay().pass();
    const jobs = await queuedJobs(job.queue);
    const batch = jobs.find((queued) => 'events' in queued.data);
    expect(batch?.id).toBe(`${ids[0]}+3-webhooks-fan-out`);
    // Stored packed (one compressed copy of the events, not their JSON), named like its job.
    expect(Object.keys(batch!.raw).sort()).toEqual(['count', 'first', 'packed']);
    expect(batch!.raw).toMatchObject({ first: ids[0], count: 3 });
    expect((batch!.data as { events: EventJobData[] }).events.map((event) => event.id)).toEqual([ids[0], ids[1], ids[3]]);
    expect(jobs.filter((queued) => !('events' in queued.data)).map((queued) => queued.id)).toEqual([`${ids[2]}-webhooks-fan-out`]);
    // The membership consumer takes only the entry event, as before.
    expect((await queuedJobs(consumerJob({ name: 'agency-audience-memberships' }).queue)).map((queued) => queued.id)).toEqual([
      `${ids[2]}-agency-audience-memberships`,
    ]);
  });

  it('refuses a packed batch that does not unpack to the events it names (invalid job data, not a retry)', async () => {
    const events = [
      { id: randomUUID(), type: 'claim.conversion.processed', projectId, payload: {}, createdAt: probe.clock.now().toISOString() },
      { id: randomUUID(), type: 'claim.conversion.processed', projectId, payload: {}, createdAt: probe.clock.now().toISOString() },
    ];
    const pack = packEvents(events);
    expect(consumerJobData.parse(pack)).toEqual({ events });
    expect(consumerJobData.safeParse({ ...pack, count: 3 }).success).toBe(false);
    expect(consumerJobData.safeParse({ ...pack, first: events[1]!.id }).success).toBe(false);
    expect(consumerJobData.safeParse({ ...pack, packed: 'bm90IGRlZmxhdGVk' }).success).toBe(false);
  });

  it('relays a round twice (a crash between queuing and marking) without a second batch job', async () => {
    const ids = await append([conversion('d-1'), conversion('d-2')]);
    await probe.relay().pass();
    await probe.sql.query(`INSERT INTO ${probe.schema}.outbox_pending (seq) SELECT seq FROM ${probe.schema}.outbox WHERE id = ANY($1)`, [ids]);
    await probe.relay().pass();
    expect((await queuedJobs(job.queue)).map((queued) => queued.id)).toEqual([`${ids[0]}+2-webhooks-fan-out`]);
  });

  it('applies each event of a batch once, however often the batch or a single event of it is delivered', async () => {
    const ids = await append([conversion('e-1'), conversion('e-2'), conversion('e-3')]);
    await probe.relay().pass();
    const [batch] = await queuedJobs(job.queue);
    expect(await run(batch!.data)).toBe(3);
    await run(batch!.data);
    await run((batch!.data as { events: EventJobData[] }).events[1]!);
    expect(await effectCount(ids)).toBe(3);
    // All three in one transaction.
    expect(await transactionsOf(ids)).toBe(1);
    expect((await processed(ids)).map((row) => row.outcome)).toEqual(['handled', 'handled', 'handled']);
  });

  it('takes the shortcut for the events it covers, applies the others together, and runs afterEach for those only', async () => {
    const ids = await append([conversion('skip-1'), conversion('h-1'), conversion('skip-2'), conversion('h-2')]);
    await probe.relay().pass();
    const [batch] = await queuedJobs(job.queue);
    const after: string[] = [];
    const processor = eventProcessor(probe.db, consumer, probe.clock, probe.logs.logger('consumer'), async (event) => {
      after.push(event.id);
    });
    expect(await processor(batch!.data, {} as Job, new AbortController().signal)).toBe(4);
    expect((await processed(ids)).map((row) => row.outcome)).toEqual(['handled', 'handled', 'handled', 'handled']);
    expect(await effectCount(ids)).toBe(2);
    expect(await effectCount([ids[1]!, ids[3]!])).toBe(2);
    expect(after).toEqual([ids[1], ids[3]]);
  });

  it('applies the other events of a batch when one fails, fails the job, and applies the rest on the retry', async () => {
    const ids = await append([conversion('f-1'), conversion('f-2'), conversion('f-3')]);
    await probe.relay().pass();
    const [batch] = await queuedJobs(job.queue);
    // Fails together, then again alone.
    failNext.set('f-2', 2);
    await expect(run(batch!.data)).rejects.toThrow('conversion f-2 cannot be applied now');
    expect(await effectCount(ids)).toBe(2);
    expect(await effectCount([ids[1]!])).toBe(0);
    // The others one by one, each in its own transaction.
    expect(await transactionsOf(ids)).toBe(2);
    await run(batch!.data);
    expect(await effectCount(ids)).toBe(3);
  });

  it('gives up a batch by recording as failed only the events it had not applied', async () => {
    const ids = await append([conversion('g-1'), conversion('g-2')]);
    await probe.relay().pass();
    const [batch] = await queuedJobs(job.queue);
    failNext.set('g-2', 2);
    await expect(run(batch!.data)).rejects.toThrow();
    await failedEventRecovery(probe.db, probe.queues, consumer, probe.clock).giveUp(batch!.data, 'kept failing');
    const outcomes = Object.fromEntries((await processed(ids)).map((row) => [row.event_id, row.outcome]));
    expect(outcomes).toEqual({ [ids[0]!]: 'handled', [ids[1]!]: 'failed' });
    expect(await probe.queues.queue(job.queue).getJob(batch!.id!)).toBeUndefined();
    // A later delivery tries the failed event again.
    await run(batch!.data);
    expect(await effectCount(ids)).toBe(2);
  });
});
