import { type Kysely, sql, type Transaction } from 'kysely';
import type { NewOutboxEvent } from '../../platform/outbox/event';
import { appendOutboxEvents } from '../../platform/outbox/append';
import { readPage, type PagedRecords } from '../../platform/db/paged-list';
import { checkIdentifier, type IdentifierType, type UserIdentifier } from '../../rules/identifiers';
import type { Page } from '../../rules/pagination';
import type { AgencyDatabase } from '../database';
import type { AttributionModel, TrackingOutcome } from '../domain/vocabulary';
import { DEFAULT_ATTRIBUTION } from './program-settings.repository';
import { referWithin, type ReferralOutcome } from './referral.repository';

/** The SDK's event names that attribute (the @fuul/sdk's sendPageview and identifyUser). */
export const PAGEVIEW = 'pageview';
export const CONNECT_WALLET = 'connect_wallet';

const DAY_MS = 86_400_000;

/** What applying one batch did (nothing when it was applied already, or is unknown or given up). */
export interface BatchApplyResult {
  applied: boolean;
  events: number;
  /** New clicks (a click of the same code, tracking id and day is counted once). */
  clicks: number;
  referrals: number;
  /** Whether an `agency.user_events.counted` event was written (the outbox relay should be woken). */
  wroteEvents: boolean;
}

interface StoredEvent {
  id: string;
  name: string;
  tracking_id: string;
  identifier_type: IdentifierType | null;
  identifier: string | null;
  signature_verified: boolean;
  referrer: string | null;
  received_at: Date;
}

interface Outcome {
  eventId: string;
  outcome: TrackingOutcome;
  affiliateId: string | null;
  code: string | null;
}

export interface TrackingEventFilter {
  trackingId?: string;
  name?: string;
  user?: UserIdentifier;
}

export interface TrackingEventRecord {
  id: string;
  name: string;
  trackingId: string;
  user: UserIdentifier | null;
  signatureVerified: boolean;
  referrer: string | null;
  receivedAt: Date;
  processedAt: Date | null;
  outcome: TrackingOutcome | null;
  affiliateId: string | null;
  code: string | null;
  args: unknown;
  metadata: unknown;
}

/**
 * The processing half of tracking (migration 0020; docs/affiliates.md, "Clicks and referrals from tracking
 * events"): a stored batch is applied in ONE transaction that locks its row, does everything the batch
 * causes (clicks, links, referrals, outcomes, the counts event) and sets `processed_at`; a batch found
 * processed is skipped, so a retried or redelivered job, or two workers at once, apply it exactly once.
 */
export class TrackingRepository {
  constructor(private readonly db: Kysely<AgencyDatabase>) {}

  /** Batches not processed and not given up, oldest first: the relay makes sure each has a job. */
  async findPending(limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('tracking_event_batches')
      .select('id')
      .where('processed_at', 'is', null)
      .where('failed_at', 'is', null)
      .orderBy('received_at')
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }

  /** The batch will not be applied: it is no longer pending and says why. */
  async fail(batchId: string, reason: string, now: Date): Promise<void> {
    await this.db
      .updateTable('tracking_event_batches')
      .set({ failed_at: now, failure: reason })
      .where('id', '=', batchId)
      .where('processed_at', 'is', null)
      .where('failed_at', 'is', null)
      .execute();
  }

  async apply(batchId: string, now: Date): Promise<BatchApplyResult> {
    return this.db.transaction().execute(async (trx) => {
      const batch = await trx
        .selectFrom('tracking_event_batches')
        .select(['id', 'project_id', 'received_at', 'processed_at', 'failed_at'])
        .where('id', '=', batchId)
        .forUpdate()
        .executeTakeFirst();
      if (!batch || batch.processed_at !== null || batch.failed_at !== null) return { ...NOTHING };
      return applyLocked(trx, batch, now);
    });
  }

  /** Clicks per code (any letter case; answered lower-cased), all time: the codes without clicks answer 0. */
  async clicksByCode(projectId: string, codes: readonly string[]): Promise<Map<string, number>> {
    const wanted = [...new Set(codes.map((code) => code.toLowerCase()))];
    const counts = new Map(wanted.map((code) => [code, 0]));
    if (wanted.length === 0) return counts;
    const rows = await this.db
      .selectFrom('code_clicks')
      .select(['code', sql<string>`count(*)`.as('clicks')])
      .where('project_id', '=', projectId)
      .where('code', 'in', wanted)
      .groupBy('code')
      .execute();
    for (const row of rows) counts.set(row.code, Number(row.clicks));
    return counts;
  }

  /** The project's events, newest first, each with its outcome once its batch is processed. */
  async list(projectId: string, filter: TrackingEventFilter, page: Page): Promise<PagedRecords<TrackingEventRecord>> {
    let matching = this.db.selectFrom('tracking_events as e').where('e.project_id', '=', projectId);
    if (filter.trackingId !== undefined) matching = matching.where('e.tracking_id', '=', filter.trackingId);
    if (filter.name !== undefined) matching = matching.where('e.name', '=', filter.name);
    if (filter.user !== undefined) {
      matching = matching.where('e.identifier_type', '=', filter.user.identifierType).where('e.identifier', '=', filter.user.identifier);
    }
    const { records, total } = await readPage(
      matching,
      (rows) =>
        rows
          .innerJoin('tracking_event_batches as b', 'b.id', 'e.batch_id')
          .leftJoin('tracking_event_outcomes as o', 'o.event_id', 'e.id')
          .select([
            'e.id',
            'e.name',
            'e.tracking_id',
            'e.identifier_type',
            'e.identifier',
            'e.signature_verified',
            'e.referrer',
            'e.received_at',
            'e.args',
            'e.metadata',
            'b.processed_at',
            'o.outcome',
            'o.affiliate_id',
            'o.code',
          ])
          .orderBy('e.received_at', 'desc')
          .orderBy('e.id', 'desc'),
      page,
    );
    return {
      total,
      records: records.map((row) => ({
        id: row.id,
        name: row.name,
        trackingId: row.tracking_id,
        user: row.identifier !== null && row.identifier_type !== null ? { identifier: row.identifier, identifierType: row.identifier_type } : null,
        signatureVerified: row.signature_verified,
        referrer: row.referrer,
        receivedAt: row.received_at,
        processedAt: row.processed_at,
        outcome: (row.outcome as TrackingOutcome | null) ?? null,
        affiliateId: row.affiliate_id ?? null,
        code: row.code ?? null,
        args: row.args,
        metadata: row.metadata,
      })),
    };
  }
}

const NOTHING: BatchApplyResult = { applied: false, events: 0, clicks: 0, referrals: 0, wroteEvents: false };

interface LockedBatch {
  id: string;
  project_id: string;
  received_at: Date;
}

/**
 * Applies a batch whose row the transaction has locked (and found pending). Batches are processed
 * concurrently, so a connect_wallet's batch may run before the batch of the pageview that came
 * before it: the pending batches received no later that hold a pageview of the same tracking ids are
 * locked first (waiting for one another worker is applying) and, when still pending, applied here,
 * older first. Locks go from newer batches to older ones only, so two workers never wait on each other.
 */
async function applyLocked(trx: Transaction<AgencyDatabase>, batch: LockedBatch, now: Date): Promise<BatchApplyResult> {
  const projectId = batch.project_id;
  const events: StoredEvent[] = await trx
    .selectFrom('tracking_events')
    .select(['id', 'name', 'tracking_id', 'identifier_type', 'identifier', 'signature_verified', 'referrer', 'received_at'])
    // Every event of a batch has the batch's received_at: the primary key (and the month's partition) finds them.
    .where('received_at', '=', batch.received_at)
    .where('batch_id', '=', batch.id)
    .where('project_id', '=', projectId)
    .orderBy('received_at')
    .orderBy('id')
    .execute();
  const connects = events.filter((event) => event.name === CONNECT_WALLET);
  const total: BatchApplyResult = { applied: true, events: events.length, clicks: 0, referrals: 0, wroteEvents: false };
  const settings = connects.length > 0 ? await attributionSettings(trx, projectId) : undefined;
  if (settings) {
    const trackingIds = [...new Set(connects.map((event) => event.tracking_id))];
    for (const earlier of await lockEarlierPageviewBatches(trx, batch, trackingIds, settings.windowDays)) {
      const result = await applyLocked(trx, earlier, now);
      total.clicks += result.clicks;
      total.referrals += result.referrals;
      total.wroteEvents ||= result.wroteEvents;
    }
  }

  const outcomes: Outcome[] = [];
  // Pageviews first: a batch that holds a pageview and the connect_wallet after it attributes to that click.
  total.clicks += await recordClicks(
    trx,
    projectId,
    events.filter((event) => event.name === PAGEVIEW && event.referrer !== null),
    outcomes,
  );
  if (settings) {
    for (const event of connects) {
      const outcome = await connectWallet(trx, projectId, event, settings, now);
      if (outcome.outcome === 'referred') {
        total.referrals += 1;
        total.wroteEvents = true;
      }
      outcomes.push(outcome);
    }
  }
  if (outcomes.length > 0) {
    await trx
      .insertInto('tracking_event_outcomes')
      .values(
        outcomes.map((outcome) => ({
          project_id: projectId,
          event_id: outcome.eventId,
          outcome: outcome.outcome,
          affiliate_id: outcome.affiliateId,
          code: outcome.code,
          decided_at: now,
        })),
      )
      .onConflict((conflict) => conflict.column('event_id').doNothing())
      .execute();
  }
  const counted = userEventCounts(projectId, await withLinkedUsers(trx, projectId, events));
  if (counted) {
    await appendOutboxEvents(trx, now, [counted]);
    total.wroteEvents = true;
  }
  await trx.updateTable('tracking_event_batches').set({ processed_at: now }).where('id', '=', batch.id).execute();
  return total;
}

/**
 * The pending batches of the project received no later than `batch` (and within the attribution window before it) that hold a pageview of one of
 * `trackingIds`, locked (FOR UPDATE waits for a worker applying one; a batch it finished is then no
 * longer pending and is left out), answered oldest first, the order they are applied in.
 */
async function lockEarlierPageviewBatches(
  trx: Transaction<AgencyDatabase>,
  batch: LockedBatch,
  trackingIds: string[],
  windowDays: number,
): Promise<LockedBatch[]> {
  const candidates = await trx
    .selectFrom('tracking_event_batches as b')
    .select('b.id')
    .where('b.processed_at', 'is', null)
    .where('b.failed_at', 'is', null)
    .where('b.project_id', '=', batch.project_id)
    .where('b.received_at', '<=', batch.received_at)
    // A batch older than the window holds no click the connect_wallets could take.
    .where('b.received_at', '>=', new Date(batch.received_at.getTime() - windowDays * DAY_MS))
    .where('b.id', '<>', batch.id)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('tracking_events as e')
          .select(sql`1`.as('one'))
          .whereRef('e.received_at', '=', 'b.received_at')
          .whereRef('e.batch_id', '=', 'b.id')
          .where('e.name', '=', PAGEVIEW)
          .where('e.referrer', 'is not', null)
          .where('e.tracking_id', 'in', trackingIds),
      ),
    )
    // Newest first: every transaction holds its own batch and then locks older ones in descending order, so
    // two workers never wait on each other in a cycle (PostgreSQL's deadlock detection, and the job's retry, remain the backstop).
    .orderBy('b.received_at', 'desc')
    .orderBy('b.id', 'desc')
    .execute();
  const locked: LockedBatch[] = [];
  for (const candidate of candidates) {
    const row = await trx
      .selectFrom('tracking_event_batches')
      .select(['id', 'project_id', 'received_at'])
      .where('id', '=', candidate.id)
      .where('processed_at', 'is', null)
      .where('failed_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (row) locked.push(row);
  }
  return locked.reverse();
}

/**
 * One click per pageview whose referrer names a code of the project (letter case ignored), stored
 * lower-cased for the UTC day of the event (ON CONFLICT DO NOTHING: once per code, tracking id and day);
 * a referrer that names no code is `unknown_code`. Answers how many clicks are new.
 */
async function recordClicks(trx: Transaction<AgencyDatabase>, projectId: string, pageviews: StoredEvent[], outcomes: Outcome[]): Promise<number> {
  if (pageviews.length === 0) return 0;
  const referrers = [...new Set(pageviews.map((event) => (event.referrer ?? '').toLowerCase()))];
  const codes = await trx
    .selectFrom('affiliate_codes')
    .select([sql<string>`lower(code)`.as('code'), 'affiliate_id'])
    .where('project_id', '=', projectId)
    .where(sql`lower(code)`, 'in', referrers)
    .execute();
  const holders = new Map(codes.map((row) => [row.code, row.affiliate_id]));
  const clicks: { project_id: string; code: string; tracking_id: string; day: string; first_at: Date }[] = [];
  for (const event of pageviews) {
    const code = (event.referrer ?? '').toLowerCase();
    const affiliateId = holders.get(code);
    if (affiliateId === undefined) {
      outcomes.push({ eventId: event.id, outcome: 'unknown_code', affiliateId: null, code: null });
      continue;
    }
    outcomes.push({ eventId: event.id, outcome: 'click', affiliateId, code });
    clicks.push({ project_id: projectId, code, tracking_id: event.tracking_id, day: utcDay(event.received_at), first_at: event.received_at });
  }
  if (clicks.length === 0) return 0;
  const inserted = await trx
    .insertInto('code_clicks')
    .values(clicks)
    .onConflict((conflict) => conflict.columns(['project_id', 'code', 'tracking_id', 'day']).doNothing())
    .returning('code')
    .execute();
  return inserted.length;
}

interface AttributionSettings {
  windowDays: number;
  model: AttributionModel;
}

async function attributionSettings(trx: Transaction<AgencyDatabase>, projectId: string): Promise<AttributionSettings> {
  const row = await trx
    .selectFrom('program_settings')
    .select(['attribution_window_days', 'attribution_model'])
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return {
    windowDays: row?.attribution_window_days ?? DEFAULT_ATTRIBUTION.attributionWindowDays,
    model: row?.attribution_model ?? DEFAULT_ATTRIBUTION.attributionModel,
  };
}

/**
 * A connect_wallet: unverified (no verified signature, or no valid user) does nothing; otherwise the
 * tracking id is linked to the wallet (the first link stays) and the click of the tracking id the
 * settings pick within the window before the event refers the wallet through the referral rule
 * (first referral wins, no self-referral, a suspended affiliate refers nobody). The link and the
 * referral are dated when the wallet connected (the event's received_at), not when the batch was processed.
 */
async function connectWallet(
  trx: Transaction<AgencyDatabase>,
  projectId: string,
  event: StoredEvent,
  settings: AttributionSettings,
  now: Date,
): Promise<Outcome> {
  const unverified: Outcome = { eventId: event.id, outcome: 'unverified', affiliateId: null, code: null };
  if (!event.signature_verified || event.identifier === null || event.identifier_type === null) return unverified;
  const checked = checkIdentifier(event.identifier, event.identifier_type);
  if (!checked.user) return unverified;
  const user = checked.user;
  await trx
    .insertInto('tracking_links')
    .values({
      project_id: projectId,
      tracking_id: event.tracking_id,
      identifier_type: user.identifierType,
      identifier: user.identifier,
      linked_at: event.received_at,
    })
    .onConflict((conflict) => conflict.columns(['project_id', 'tracking_id']).doNothing())
    .execute();
  const since = new Date(event.received_at.getTime() - settings.windowDays * DAY_MS);
  const click = await trx
    .selectFrom('code_clicks')
    .select('code')
    .where('project_id', '=', projectId)
    .where('tracking_id', '=', event.tracking_id)
    .where('first_at', '>=', since)
    .where('first_at', '<=', event.received_at)
    .orderBy('first_at', settings.model === 'last_click' ? 'desc' : 'asc')
    .limit(1)
    .executeTakeFirst();
  if (!click) return { eventId: event.id, outcome: 'no_click', affiliateId: null, code: null };
  return referralOutcome(event.id, click.code, await referWithin(trx, projectId, user, click.code, now, event.received_at));
}

function referralOutcome(eventId: string, code: string, result: ReferralOutcome): Outcome {
  switch (result.kind) {
    case 'created':
      return { eventId, outcome: 'referred', affiliateId: result.referral.affiliate.id, code };
    case 'existing':
      return { eventId, outcome: 'already_referred', affiliateId: result.referral.affiliate.id, code: result.referral.code.toLowerCase() };
    case 'self_referral':
      return { eventId, outcome: 'self_referral', affiliateId: result.affiliate.id, code };
    case 'cycle':
      return { eventId, outcome: 'referral_cycle', affiliateId: result.affiliate.id, code };
    case 'suspended':
      return { eventId, outcome: 'affiliate_suspended', affiliateId: result.affiliate.id, code };
    case 'no_code':
    case 'exhausted':
      // Clicks are of affiliate codes, which have no use limit: only a code that no longer names one gets here.
      return { eventId, outcome: 'unknown_code', affiliateId: null, code };
  }
}

/**
 * The SDK's `sendEvent` names no user, only the visitor's tracking id: an event without a user, received
 * once its tracking id was linked to a wallet (a verified connect_wallet, this batch's included), is
 * that wallet's. Events received before the link stay anonymous.
 */
async function withLinkedUsers(trx: Transaction<AgencyDatabase>, projectId: string, events: StoredEvent[]): Promise<StoredEvent[]> {
  const anonymous = [...new Set(events.filter((event) => event.identifier === null).map((event) => event.tracking_id))];
  if (anonymous.length === 0) return events;
  const links = await trx
    .selectFrom('tracking_links')
    .select(['tracking_id', 'identifier_type', 'identifier', 'linked_at'])
    .where('project_id', '=', projectId)
    .where('tracking_id', 'in', anonymous)
    .execute();
  if (links.length === 0) return events;
  const byTrackingId = new Map(links.map((link) => [link.tracking_id, link]));
  return events.map((event) => {
    const link = event.identifier === null ? byTrackingId.get(event.tracking_id) : undefined;
    return link && link.linked_at <= event.received_at ? { ...event, identifier: link.identifier, identifier_type: link.identifier_type } : event;
  });
}

/** The batch's identified events counted per user, name and UTC day: one `agency.user_events.counted`, or none. */
function userEventCounts(projectId: string, events: StoredEvent[]): NewOutboxEvent | undefined {
  const counts = new Map<string, { user: { identifier: string; identifier_type: IdentifierType }; name: string; day: string; count: number }>();
  for (const event of events) {
    if (event.identifier === null || event.identifier_type === null) continue;
    const day = utcDay(event.received_at);
    const key = JSON.stringify([event.identifier_type, event.identifier, event.name, day]);
    const entry = counts.get(key);
    if (entry) entry.count += 1;
    else counts.set(key, { user: { identifier: event.identifier, identifier_type: event.identifier_type }, name: event.name, day, count: 1 });
  }
  if (counts.size === 0) return undefined;
  return { type: 'agency.user_events.counted', projectId, payload: { project_id: projectId, counts: [...counts.values()] } };
}

function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}
