import { type Kysely, sql } from 'kysely';
import type { Clock } from '../clock';
import { EVENT_CONSUMER_LIST, type EventConsumerEntry } from '../events/consumers';
import type { RelayParticipant } from '../job-relay';
import type { Logger } from '../logger';
import type { QueueKit } from '../queue';
import { consumerJob, consumerPackJob } from './consumer';
import { BATCHED_EVENT_TYPES, type ConsumerJobData, type EventJobData, type EventPackJobData, packEventsJson } from './event';
import type { OutboxTables } from './tables';

/** What domain code needs of the relay: to say that a commit appended events. */
export interface OutboxWaker {
  wake(): void;
}

export interface OutboxRelayOptions {
  /** The producing service: names its marker in Redis (one outbox per service). */
  service: string;
  clock: Clock;
  logger: Logger;
  /** Events read and queued per round (OUTBOX_RELAY_BATCH). */
  batchSize: number;
  /** How long relayed events are kept (OUTBOX_RETENTION_HOURS); processed_events keeps twice as long. */
  retentionMs: number;
  /** Who receives which events: the catalog (events/consumers.ts) unless a test names its own. */
  consumers?: readonly EventConsumerEntry[];
}

/** A round stops adding events once their stored (compressed) payloads reach this many bytes, so a round's memory stays bounded. */
const ROUND_PAYLOAD_BYTES = 1024 * 1024;
/** Pruning runs at most this often (real time: it is housekeeping, not business time). */
const PRUNE_EVERY_MS = 60_000;
/** About the events one prune statement deletes, in whole rounds (the next pass deletes more). */
const PRUNE_LIMIT = 10_000;

/**
 * The read of a relay round: the oldest pending events, in order, up to `batchSize` of them and about
 * ROUND_PAYLOAD_BYTES of payload. A pending seq without its event (never the case unless someone
 * deleted it by hand) comes back with a null id, so the round takes it out and it cannot stall the relay.
 *
 * Each pending event is looked up by its key (LATERAL ... LIMIT 1, which the planner cannot turn into
 * a join): outbox_pending is a queue whose statistics are always stale, and the planner, expecting a
 * full batch of pending events, hash-joined them with a scan of the whole outbox, whose retained
 * events only grow. Measured: 18.7 ms a round for about 13 events over 10,000 retained ones.
 * Raw: a running sum over the window of a limited subquery has no builder form worth reading.
 */
export function pendingRound(batchSize: number) {
  return sql<PendingRow | (Omit<PendingRow, 'id'> & { id: null })>`
    SELECT seq, id, type, project_id, payload::text AS payload_text, created_at FROM (
      SELECT p.seq, o.id, o.type, o.project_id, o.payload, o.created_at,
             sum(coalesce(pg_column_size(o.payload), 0)) OVER (ORDER BY p.seq) - coalesce(pg_column_size(o.payload), 0) AS bytes_before
      FROM (SELECT seq FROM outbox_pending ORDER BY seq LIMIT ${batchSize}) p
      LEFT JOIN LATERAL (SELECT e.id, e.type, e.project_id, e.payload, e.created_at FROM outbox e WHERE e.seq = p.seq LIMIT 1) o ON true
    ) pending
    WHERE bytes_before < ${ROUND_PAYLOAD_BYTES}
    ORDER BY seq`;
}

interface PendingRow {
  seq: bigint;
  id: string;
  type: string;
  project_id: string;
  /** The payload's JSON text: a batch's payloads go into its packed JSON as they are, never parsed here. */
  payload_text: string;
  created_at: Date;
}

/**
 * Moves committed events from the service's outbox to the queue of each consumer that subscribes
 * to their type, in rounds ordered by seq, then marks them relayed (out of outbox_pending, and the
 * round recorded in outbox_relays: tables.ts, splitOutboxRelayState). Every step may be repeated:
 * a job id is (event, consumer), so queuing an event again is a no-op while its job exists, and its
 * consumer's processed_events makes a late repeat harmless; a crash between queuing and marking
 * just queues the round again.
 *
 * Runs after each commit that appended events (wake), on the job relay's timer and whenever Redis
 * reconnects (a RelayParticipant of services/platform/job-relay.ts). Redis losing its data is
 * noticed by a marker key going missing: every event still kept is then relayed again, since the
 * jobs that carried them may be gone (consumers skip the ones they had processed).
 */
export class OutboxRelay<DB extends OutboxTables = OutboxTables> implements RelayParticipant {
  readonly name = 'event outbox';
  private readonly consumers: readonly EventConsumerEntry[];
  private active = false;
  private running: Promise<void> | undefined;
  private again = false;
  private lastPruneAt = 0;
  private readonly db: Kysely<OutboxTables>;

  constructor(
    db: Kysely<DB>,
    private readonly queues: QueueKit,
    private readonly options: OutboxRelayOptions,
  ) {
    // Only the outbox tables are used here, whatever else the service's schema holds.
    this.db = db as unknown as Kysely<OutboxTables>;
    this.consumers = options.consumers ?? EVENT_CONSUMER_LIST;
  }

  onStart(): void {
    this.active = true;
  }

  onStop(): void {
    this.active = false;
  }

  /** Events were just committed: relay them now, in the background (no-op where the relay does not run). */
  wake(): void {
    if (!this.active) return;
    this.pass().catch((error: unknown) => this.options.logger.warn({ err: error }, 'event relay failed after a commit; its periodic pass retries'));
  }

  /** Relays every pending event. Passes never overlap: asking during one runs another right after it. */
  pass(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.passOnce();
      } while (this.again);
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async passOnce(): Promise<void> {
    // Redis away: nothing can be queued; the pass on reconnection does the work.
    if (!this.queues.isAvailable()) return;
    await this.replayIfRedisLostData();
    while (await this.relayRound()) {
      // Until a round finds nothing more.
    }
    if (Date.now() - this.lastPruneAt >= PRUNE_EVERY_MS) {
      this.lastPruneAt = Date.now();
      await this.prune();
    }
  }

  /** One round: the oldest pending events, queued to their consumers, then marked. False when none was pending. */
  private async relayRound(): Promise<boolean> {
    const { rows: read } = await pendingRound(this.options.batchSize).execute(this.db);
    if (read.length === 0) return false;
    const rows = read.filter((row): row is PendingRow => row.id !== null);

    // A batch is packed once per round, whichever consumers receive it (they receive the same events),
    // from the payloads' JSON text as PostgreSQL gives it; only the events that travel alone are parsed.
    const packs = new Map<string, EventPackJobData>();
    const packOf = (batch: PendingRow[]) => {
      const key = `${batch[0]!.id}+${batch.length}+${batch.at(-1)!.id}`;
      let pack = packs.get(key);
      if (!pack) {
        const json = `[${batch.map((row) => `{"id":${JSON.stringify(row.id)},"type":${JSON.stringify(row.type)},"projectId":${JSON.stringify(row.project_id)},"payload":${row.payload_text},"createdAt":"${row.created_at.toISOString()}"}`).join(',')}]`;
        packs.set(key, (pack = packEventsJson(batch[0]!.id, batch.length, json)));
      }
      return pack;
    };
    const single = new Map<PendingRow, EventJobData>();
    const alone = (row: PendingRow): EventJobData => {
      let event = single.get(row);
      if (!event) {
        event = {
          id: row.id,
          type: row.type,
          projectId: row.project_id,
          payload: JSON.parse(row.payload_text) as unknown,
          createdAt: row.created_at.toISOString(),
        };
        single.set(row, event);
      }
      return event;
    };
    for (const consumer of this.consumers) {
      const theirs = rows.filter((row) => (consumer.eventTypes as readonly string[]).includes(row.type));
      // Events of the batched types travel together, one packed job per consumer and round (event.ts).
      const batched = theirs.filter((row) => BATCHED_EVENT_TYPES.has(row.type));
      const jobs: ConsumerJobData[] = batched.length === theirs.length ? [] : theirs.filter((row) => !BATCHED_EVENT_TYPES.has(row.type)).map(alone);
      if (batched.length === 1) jobs.push(alone(batched[0]!));
      if (jobs.length > 0) await this.queues.enqueueMany(consumerJob(consumer), jobs);
      if (batched.length > 1) await this.queues.enqueueMany(consumerPackJob(consumer), [packOf(batched)]);
    }
    // The round's events leave outbox_pending and the round is recorded, in one statement; a
    // concurrent round that relayed them first leaves nothing to delete, and records nothing.
    // One array parameter rather than one parameter per event (a round holds up to OUTBOX_RELAY_BATCH).
    // Raw: a DELETE feeding an INSERT has no builder form.
    await sql`
      WITH relayed AS (DELETE FROM outbox_pending WHERE seq = ANY(${read.map((row) => row.seq.toString())}::bigint[]) RETURNING seq)
      INSERT INTO outbox_relays (relayed_at, seqs)
      SELECT ${this.options.clock.now()}::timestamptz, array_agg(seq ORDER BY seq) FROM relayed HAVING count(*) > 0`.execute(this.db);
    return true;
  }

  private async replayIfRedisLostData(): Promise<void> {
    const marker = `outbox:${this.options.service}`;
    if (await this.queues.hasMarker(marker)) return;
    // Marked only after the events are pending again: a crash in between replays them once more, harmlessly.
    // Their rounds go: each is recorded again when relayed again, and retention counts from then.
    // Raw: a DELETE beside an INSERT ... SELECT ... ON CONFLICT, in one statement (so one transaction).
    const { numAffectedRows } = await sql`
      WITH forgotten AS (DELETE FROM outbox_relays)
      INSERT INTO outbox_pending (seq) SELECT seq FROM outbox ON CONFLICT (seq) DO NOTHING`.execute(this.db);
    if (numAffectedRows !== undefined && numAffectedRows > 0n) {
      this.options.logger.warn(
        { events: Number(numAffectedRows) },
        'Redis lost its data (the outbox marker is gone): relaying every kept event again; consumers skip those they processed',
      );
    }
    await this.queues.setMarker(marker, this.options.clock.now().toISOString());
  }

  /** Relayed events past retention go; so do processed-event records past twice that. Passes run it at most once a minute. */
  async prune(): Promise<void> {
    const now = this.options.clock.now().getTime();
    const relayedBefore = new Date(now - this.options.retentionMs);
    const processedBefore = new Date(now - 2 * this.options.retentionMs);
    // The oldest rounds relayed before the cutoff go, with their events; an event pending again
    // (relayed anew since) stays, and is kept by the round that relays it next.
    // Raw: a DELETE of a limited subquery feeding another DELETE has no builder form.
    const outbox = await sql`
      WITH old AS (
        DELETE FROM outbox_relays WHERE ctid = ANY(ARRAY(
          SELECT ctid FROM outbox_relays WHERE relayed_at < ${relayedBefore}::timestamptz ORDER BY relayed_at LIMIT ${Math.max(1, Math.floor(PRUNE_LIMIT / this.options.batchSize))}
        ))
        RETURNING seqs
      )
      DELETE FROM outbox o USING (SELECT DISTINCT unnest(seqs) AS seq FROM old) r
      WHERE o.seq = r.seq AND NOT EXISTS (SELECT 1 FROM outbox_pending p WHERE p.seq = o.seq)`.execute(this.db);
    // Small rows, pruned every minute: each prune deletes about a minute's worth.
    const processed = await this.db.deleteFrom('processed_events').where('processed_at', '<', processedBefore).executeTakeFirst();
    const outboxDeleted = outbox.numAffectedRows ?? 0n;
    if (outboxDeleted > 0n || processed.numDeletedRows > 0n) {
      this.options.logger.info({ outbox: Number(outboxDeleted), processed_events: Number(processed.numDeletedRows) }, 'pruned events past retention');
    }
  }
}
