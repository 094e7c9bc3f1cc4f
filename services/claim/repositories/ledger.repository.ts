import { type Kysely, sql, type Transaction } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import { isUniqueViolation } from '../../platform/db/errors';
import { MAX_AMOUNT } from '../../rules/money';
import { appendOutboxEvents } from '../../platform/outbox/append';
import type { NewOutboxEvent } from '../../platform/outbox/event';
import type { ClaimDatabase } from '../database';
import type { PlannedMovement } from '../domain/payouts';
import { REASON_OF_KIND, type PendingReason } from '../domain/vocabulary';
import { flagConversions } from './conversion-review.repository';
import type { ConversionOutcome } from './conversion-outcome';
import { growLeaderboards, placeInOpenChecks } from './open-checks';
import { creditPoints } from './point-balances';
import { applyCaps } from './payout-caps';
import { retryTransient } from './retry';

/** The unique index of the open check of a (user, currency, reason) that takes movements (migration 0008). */
export const ACCEPTING_CHECK_KEY = 'claim_checks_accepting_key';

/** What one call of `record` wrote (nothing, when another delivery of the job had written it first). */
export interface RecordResult {
  /** The conversions this call moved out of `accepted`, with their outcomes. */
  recorded: ConversionOutcome[];
  movements: number;
}

/** The events of the conversions a recording transaction pays, appended to the outbox in that transaction. */
export type EventsOf = (recorded: ConversionOutcome[]) => NewOutboxEvent[];

export class LedgerRepository {
  constructor(private readonly db: Kysely<ClaimDatabase>) {}

  /**
   * Pays a batch's conversions in ONE transaction: each conversion still `accepted` gets its status,
   * frozen attribution and currency; its terms' caps cut its movements (applyCaps, only when some terms of the
   * batch have caps); its movements are appended to the ledger; the open claim checks of their (user, currency, reason) grow by them; the leaderboard
   * totals of the counted kinds grow by them; the conversions that broke a review rule enter the review
   * queue (flagConversions); their events (`eventsOf`) go to the outbox; and the batch is
   * finished once none of its conversions waits. The checks and totals are written last, just before the
   * commit, since concurrent payments wait for each other's locks on them. A conversion another delivery already moved out
   * of `accepted` is skipped, so a redelivered job changes nothing; the ledger's unique key
   * (conversion, kind, beneficiary) would refuse a second payment anyway.
   */
  async record(
    projectId: string,
    batchId: string,
    outcomes: ConversionOutcome[],
    now: Date,
    eventsOf: EventsOf,
    pointCurrencies: ReadonlySet<string> = new Set(),
  ): Promise<RecordResult> {
    return retryTransient(
      () =>
        this.db.transaction().execute(async (trx) => {
          // The update is the guard: it takes the rows still `accepted` (waiting for a concurrent
          // delivery's commit, then finding them paid), and says which this transaction owns.
          const sorted = [...outcomes].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
          const owned = sorted.length === 0 ? new Set<string>() : await updateConversions(trx, batchId, sorted, now);
          const owns = sorted.filter((outcome) => owned.has(outcome.id));
          const recorded = owns.some((outcome) => outcome.caps !== null) ? await applyCaps(trx, projectId, owns, now) : owns;
          if (recorded.length > 0) {
            await freezeUplines(trx, projectId, recorded);
            // The queue's rows with the movements that wait for them: only when the batch broke a rule.
            await flagConversions(
              trx,
              projectId,
              recorded.flatMap((outcome) => (outcome.review ? [outcome.review] : [])),
              now,
            );
            await appendOutboxEvents(trx, now, eventsOf(recorded));
          }
          await trx
            .updateTable('conversion_batches')
            .set({ finished_at: now })
            .where('id', '=', batchId)
            .where('finished_at', 'is', null)
            .where(({ not, exists, selectFrom }) =>
              not(exists(selectFrom('conversions').select('id').where('batch_id', '=', batchId).where('status', '=', 'accepted'))),
            )
            .execute();
          // Last: the money's statement locks rows every payment of the project shares (the affiliates' open checks,
          // their leaderboard rows, the board's size), held until the commit; written before it, the events and the
          // rest kept a concurrent payment waiting on those rows for their time too.
          const movements = recorded.length > 0 ? await appendMovements(trx, projectId, recorded, now, pointCurrencies) : 0;
          return { recorded, movements };
        }),
      // A check appendOverflowing opened for a key a concurrent payment opened one for first: run again.
      (error) => isUniqueViolation(error, ACCEPTING_CHECK_KEY),
    );
  }
}

/**
 * Status, frozen attribution (its code's rebate rate too, and allowlist eligibility) and currency of the batch's conversions still `accepted`; answers their
 * ids (the ones this transaction owns). Rows are named in id order, so concurrent deliveries of one
 * batch queue behind each other (a deadlock all the same is rolled back and run again: retryTransient).
 * The rows are found by batch (its index), not by project: a batch's conversions are all of its
 * project, and `project_id = ...` let the planner, misled by a young table's statistics, hash-join
 * the batch with a scan of every conversion of the project, for every batch.
 */
async function updateConversions(trx: Transaction<ClaimDatabase>, batchId: string, outcomes: ConversionOutcome[], now: Date): Promise<Set<string>> {
  const column = <T>(pick: (outcome: ConversionOutcome) => T) => outcomes.map(pick);
  const affiliate = (outcome: ConversionOutcome) => outcome.attribution?.affiliate;
  const master = (outcome: ConversionOutcome) => outcome.attribution?.master;
  // The allowlists' columns only when some terms of the batch named one: every other batch runs the statement it always ran.
  const checked = outcomes.some((o) => o.eligibility?.endUser || o.eligibility?.affiliate);
  const endUser = (o: ConversionOutcome) => o.eligibility?.endUser;
  const affiliateSide = (o: ConversionOutcome) => o.eligibility?.affiliate;
  const eligibilitySet = checked
    ? sql`, end_user_allowlist_audience_id = u.end_user_list, end_user_eligible = u.end_user_eligible,
          affiliate_allowlist_audience_id = u.affiliate_list, affiliate_eligible = u.affiliate_eligible`
    : sql``;
  const eligibilityArrays = checked
    ? sql`, ${column((o) => endUser(o)?.allowlistAudienceId ?? null)}::uuid[], ${column((o) => endUser(o)?.eligible ?? null)}::boolean[],
          ${column((o) => affiliateSide(o)?.allowlistAudienceId ?? null)}::uuid[], ${column((o) => affiliateSide(o)?.eligible ?? null)}::boolean[]`
    : sql``;
  const eligibilityNames = checked ? sql`, end_user_list, end_user_eligible, affiliate_list, affiliate_eligible` : sql``;
  // Raw: an UPDATE ... FROM a many-array unnest has no builder form.
  const { rows } = await sql<{ id: string }>`
    UPDATE conversions AS c SET
      status = u.status, failure_reason = u.failure_reason, processed_at = ${now}, currency_id = u.currency_id,
      affiliate_id = u.affiliate_id, affiliate_identifier_type = u.affiliate_type, affiliate_identifier = u.affiliate_identifier,
      master_id = u.master_id, master_identifier_type = u.master_type, master_identifier = u.master_identifier,
      master_spread_bps = u.spread_bps, tier_id = u.tier_id, user_rebate_rate_bps = u.rebate_bps${eligibilitySet}
    FROM unnest(
      ${column((o) => o.id)}::text[], ${column((o) => o.status)}::text[], ${column((o) => o.failureReason)}::text[],
      ${column((o) => o.currencyId)}::uuid[],
      ${column((o) => affiliate(o)?.id ?? null)}::text[], ${column((o) => affiliate(o)?.user.identifierType ?? null)}::text[],
      ${column((o) => affiliate(o)?.user.identifier ?? null)}::text[],
      ${column((o) => master(o)?.affiliate.id ?? null)}::text[], ${column((o) => master(o)?.affiliate.user.identifierType ?? null)}::text[],
      ${column((o) => master(o)?.affiliate.user.identifier ?? null)}::text[], ${column((o) => master(o)?.spreadBps ?? null)}::integer[],
      ${column((o) => o.attribution?.tierId ?? null)}::uuid[], ${column((o) => o.attribution?.rebateBps ?? null)}::integer[]${eligibilityArrays}
    ) AS u(id, status, failure_reason, currency_id, affiliate_id, affiliate_type, affiliate_identifier,
           master_id, master_type, master_identifier, spread_bps, tier_id, rebate_bps${eligibilityNames})
    WHERE c.batch_id = ${batchId} AND c.id = u.id AND c.status = 'accepted'
    RETURNING c.id`.execute(trx);
  return new Set(rows.map((row) => row.id));
}

/**
 * The upline of each recorded conversion that has one (docs/claims.md#referral-levels), frozen beside its
 * attribution in conversion_upline: one statement, and none at all when no conversion of the batch has an upline.
 */
async function freezeUplines(trx: Transaction<ClaimDatabase>, projectId: string, outcomes: ConversionOutcome[]): Promise<void> {
  const rows = outcomes.flatMap((outcome) =>
    (outcome.attribution?.upline ?? []).map(({ level, affiliate }) => ({
      project_id: projectId,
      conversion_id: outcome.id,
      level,
      affiliate_id: affiliate.id,
      identifier_type: affiliate.user.identifierType,
      identifier: affiliate.user.identifier,
    })),
  );
  if (rows.length > 0) await trx.insertInto('conversion_upline').values(rows).execute();
}

interface MovementRow {
  conversionId: string;
  movement: PlannedMovement;
  currencyId: string;
}

interface PendingRow extends MovementRow {
  reason: PendingReason;
  availableAt: Date;
}

const DAY_MS = 86_400_000;

/**
 * The money, in one statement: open claim checks grow (one per user, currency and reason, created
 * when none is open; what grows a check pays the user's debt carried on it first), the movements are appended pointing at their check, and the leaderboards'
 * running totals (and their sizes) grow by the counted kinds. Shared rows are written in key order.
 *
 * No check passes 2^256 − 1, the most a voucher pays: a key whose open check the batch's movements
 * would take past it (or whose movements alone pass it) is left out of the statement's checks and
 * movements (the statement's two guards, `HAVING` and the conflict's `WHERE`, cost nothing when
 * amounts are far from the bound, which is always but for the adversarial), and is paid after it by
 * appendOverflowing, in the same transaction.
 *
 * Movements that wait (a hold, an approval, a review: `pendingReason`, or a flagged affiliate's
 * `waitsForFlag`) are appended by the same statement,
 * `pending` with their `available_at` and in no check, when the batch has any (a CTE of their own);
 * they grow no check and no total until they become available (release-held-movements, approvals).
 * A batch without them runs the statement it always ran.
 */
async function appendMovements(
  trx: Transaction<ClaimDatabase>,
  projectId: string,
  outcomes: ConversionOutcome[],
  now: Date,
  pointCurrencies: ReadonlySet<string>,
): Promise<number> {
  const rows: MovementRow[] = [];
  const pending: PendingRow[] = [];
  const points: MovementRow[] = [];
  for (const outcome of outcomes) {
    if (outcome.currencyId === null) continue;
    for (const movement of outcome.movements) {
      const row = { conversionId: outcome.id, movement, currencyId: outcome.currencyId };
      const reason = movement.waitsForFlag ? 'review' : outcome.pendingReason;
      if (reason !== null) pending.push({ ...row, reason, availableAt: new Date(now.getTime() + outcome.holdDays * DAY_MS) });
      else if (pointCurrencies.has(row.currencyId)) points.push(row);
      else rows.push(row);
    }
  }
  const pointsWritten = await appendPoints(trx, projectId, points, now);
  if (rows.length === 0 && pending.length === 0) return pointsWritten;
  // The capped columns only when a cap cut something: every other batch runs the statement it always ran.
  const capped = cappedColumns(rows);
  const heldCapped = cappedColumns(pending);
  // The rebate column likewise only when the batch pays a rebate.
  const rebates = rebateColumns(rows);
  const heldRebates = rebateColumns(pending);
  // The level column likewise only when the batch pays a level above 1 (docs/claims.md#referral-levels); the
  // movements of a conversion are then written level by level (their ids in that order).
  const levels = levelColumns(rows);
  const heldLevels = levelColumns(pending);
  const held =
    pending.length === 0
      ? sql``
      : sql`,
    held AS (
      INSERT INTO movements (project_id, conversion_id, kind, identifier_type, identifier, currency_id, amount, status, pending_reason, available_at, created_at${heldCapped.names}${heldRebates.names}${heldLevels.names})
      SELECT ${projectId}, conversion_id, kind, identifier_type, identifier, currency_id, amount, 'pending', reason, available_at, ${now}${heldCapped.names}${heldRebates.names}${heldLevels.names}
      FROM unnest(${pending.map((r) => r.conversionId)}::text[], ${pending.map((r) => r.movement.kind)}::text[],
                  ${pending.map((r) => r.movement.beneficiary.identifierType)}::text[], ${pending.map((r) => r.movement.beneficiary.identifier)}::text[],
                  ${pending.map((r) => r.currencyId)}::uuid[], ${pending.map((r) => r.movement.amount)}::numeric[],
                  ${pending.map((r) => r.reason)}::text[], ${pending.map((r) => r.availableAt)}::timestamptz[]${heldCapped.arrays}${heldRebates.arrays}${heldLevels.arrays})
        AS h(conversion_id, kind, identifier_type, identifier, currency_id, amount, reason, available_at${heldCapped.names}${heldRebates.names}${heldLevels.names})
      ORDER BY conversion_id, kind${heldLevels.names}
      RETURNING 1
    )`;
  const heldCount = pending.length === 0 ? sql`0` : sql`(SELECT count(*) FROM held)`;
  const column = <T>(pick: (row: MovementRow) => T) => rows.map(pick);
  const user = (row: MovementRow): UserIdentifier => row.movement.beneficiary;
  const max = MAX_AMOUNT.toString();
  // Raw: data-modifying CTEs that feed each other (checks -> movements, totals -> sizes) have no builder form.
  // The per-day boards (days) grow by the same amounts, on the day the movements are written (docs/claims.md#leaderboards-over-a-date-range).
  const result = await sql<{ movements: string; held: string }>`
    WITH planned AS (
      SELECT * FROM unnest(
        ${column((r) => r.conversionId)}::text[], ${column((r) => r.movement.kind)}::text[],
        ${column((r) => user(r).identifierType)}::text[], ${column((r) => user(r).identifier)}::text[],
        ${column((r) => r.currencyId)}::uuid[], ${column((r) => r.movement.amount)}::numeric[],
        ${column((r) => REASON_OF_KIND[r.movement.kind])}::text[]${capped.arrays}${rebates.arrays}${levels.arrays}
      ) AS p(conversion_id, kind, identifier_type, identifier, currency_id, amount, reason${capped.names}${rebates.names}${levels.names})
    ),
    checks AS (
      INSERT INTO claim_checks AS cc (project_id, identifier_type, identifier, currency_id, reason, status, amount, movements_count, created_at, updated_at)
      SELECT ${projectId}, identifier_type, identifier, currency_id, reason, 'open', sum(amount), count(*), ${now}, ${now}
      FROM planned
      GROUP BY identifier, identifier_type, currency_id, reason
      HAVING sum(amount) <= ${max}::numeric
      ORDER BY identifier, identifier_type, currency_id, reason
      ON CONFLICT (project_id, identifier, identifier_type, currency_id, reason) WHERE status = 'open' AND full_at IS NULL
      DO UPDATE SET amount = cc.amount + excluded.amount - least(cc.debt, excluded.amount), debt = cc.debt - least(cc.debt, excluded.amount),
                    movements_count = cc.movements_count + excluded.movements_count, updated_at = excluded.updated_at
      WHERE cc.amount + excluded.amount <= ${max}::numeric
      RETURNING id, identifier_type, identifier, currency_id, reason
    ),
    moved AS (
      INSERT INTO movements (project_id, conversion_id, kind, identifier_type, identifier, currency_id, amount, claim_check_id, available_at, created_at${capped.names}${rebates.names}${levels.names})
      SELECT ${projectId}, p.conversion_id, p.kind, p.identifier_type, p.identifier, p.currency_id, p.amount, c.id, ${now}, ${now}${capped.names}${rebates.names}${levels.names}
      FROM planned p JOIN checks c USING (identifier_type, identifier, currency_id, reason)
      ORDER BY p.conversion_id, p.kind${levels.names}
      RETURNING 1
    ),
    totals AS (
      INSERT INTO leaderboard_totals AS lt (project_id, currency_id, user_type, identifier_type, identifier, total_amount, total_attributions, updated_at)
      SELECT ${projectId}, currency_id, CASE kind WHEN 'affiliate_payout' THEN 'affiliate' ELSE 'end_user' END AS user_type,
             identifier_type, identifier, sum(amount), count(*), ${now}
      FROM planned
      WHERE kind IN ('affiliate_payout', 'end_user_payout')
      GROUP BY currency_id, user_type, identifier_type, identifier
      ORDER BY currency_id, user_type, identifier_type, identifier
      ON CONFLICT (project_id, currency_id, user_type, identifier_type, identifier)
      DO UPDATE SET total_amount = lt.total_amount + excluded.total_amount,
                    total_attributions = lt.total_attributions + excluded.total_attributions,
                    updated_at = excluded.updated_at
      -- A row this statement inserted has no locking transaction (xmax = 0): a new entry of its board.
      RETURNING currency_id, user_type, (xmax = 0) AS inserted
    ),
    sizes AS (
      INSERT INTO leaderboard_sizes AS ls (project_id, currency_id, user_type, entries)
      SELECT ${projectId}, currency_id, user_type, count(*) FROM totals WHERE inserted
      GROUP BY currency_id, user_type
      ORDER BY currency_id, user_type
      ON CONFLICT (project_id, currency_id, user_type) DO UPDATE SET entries = ls.entries + excluded.entries
    ),
    days AS (
      INSERT INTO leaderboard_days AS ld (project_id, currency_id, user_type, day, identifier_type, identifier, total_amount, total_attributions)
      SELECT ${projectId}, currency_id, CASE kind WHEN 'affiliate_payout' THEN 'affiliate' ELSE 'end_user' END AS user_type,
             (${now}::timestamptz AT TIME ZONE 'UTC')::date, identifier_type, identifier, sum(amount), count(*)
      FROM planned
      WHERE kind IN ('affiliate_payout', 'end_user_payout')
      GROUP BY currency_id, user_type, identifier_type, identifier
      ORDER BY currency_id, user_type, identifier_type, identifier
      ON CONFLICT (project_id, currency_id, user_type, day, identifier_type, identifier)
      DO UPDATE SET total_amount = ld.total_amount + excluded.total_amount,
                    total_attributions = ld.total_attributions + excluded.total_attributions
    )${held}
    SELECT (SELECT count(*) FROM moved) AS movements, ${heldCount} AS held`.execute(trx);
  let written = Number(result.rows[0]?.movements ?? 0);
  if (written < rows.length) written += await appendOverflowing(trx, projectId, await unwritten(trx, projectId, rows), now);
  if (written !== rows.length) throw new Error(`wrote ${written} of ${rows.length} movements`);
  const heldWritten = Number(result.rows[0]?.held ?? 0);
  if (heldWritten !== pending.length) throw new Error(`wrote ${heldWritten} of ${pending.length} pending movements`);
  return written + heldWritten + pointsWritten;
}

/**
 * Points available at once (docs/claims.md#points): appended available in no claim check, credited to
 * their users' points balances, and counted on the leaderboards (the points board is the point
 * currency's payouts board). A statement of their own, before the money's: a batch paying no points
 * runs nothing more, and balances are locked before checks and totals, as releases lock them.
 */
async function appendPoints(trx: Transaction<ClaimDatabase>, projectId: string, rows: MovementRow[], now: Date): Promise<number> {
  if (rows.length === 0) return 0;
  const capped = cappedColumns(rows);
  const rebates = rebateColumns(rows);
  const levels = levelColumns(rows);
  const inserted = await sql<{ movements: string }>`
    WITH moved AS (
      INSERT INTO movements (project_id, conversion_id, kind, identifier_type, identifier, currency_id, amount, available_at, created_at${capped.names}${rebates.names}${levels.names})
      SELECT ${projectId}, conversion_id, kind, identifier_type, identifier, currency_id, amount, ${now}, ${now}${capped.names}${rebates.names}${levels.names}
      FROM unnest(${rows.map((row) => row.conversionId)}::text[], ${rows.map((row) => row.movement.kind)}::text[],
                  ${rows.map((row) => row.movement.beneficiary.identifierType)}::text[], ${rows.map((row) => row.movement.beneficiary.identifier)}::text[],
                  ${rows.map((row) => row.currencyId)}::uuid[], ${rows.map((row) => row.movement.amount)}::numeric[]${capped.arrays}${rebates.arrays}${levels.arrays})
        AS m(conversion_id, kind, identifier_type, identifier, currency_id, amount${capped.names}${rebates.names}${levels.names})
      ORDER BY conversion_id, kind${levels.names}
      RETURNING 1
    )
    SELECT count(*) AS movements FROM moved`.execute(trx);
  const changes = rows.map((row) => ({
    kind: row.movement.kind,
    beneficiary: row.movement.beneficiary,
    currencyId: row.currencyId,
    amount: row.movement.amount,
  }));
  await creditPoints(trx, projectId, changes, now);
  await growLeaderboards(
    trx,
    projectId,
    changes.map((change) => ({ ...change, writtenAt: now })),
    now,
  );
  return Number(inserted.rows[0]?.movements ?? 0);
}

/**
 * The capped columns of an insert from unnest, when a cap cut one of the rows: their arrays, and their
 * names (for the column list, the SELECT and the unnest's alias alike); empty otherwise.
 */
function cappedColumns(rows: MovementRow[]) {
  if (!rows.some((row) => row.movement.capped)) return { arrays: sql``, names: sql`` };
  return {
    arrays: sql`, ${rows.map((row) => row.movement.capped?.amount ?? 0n)}::numeric[], ${rows.map((row) => row.movement.capped?.by ?? null)}::text[]`,
    names: sql`, capped_amount, capped_by`,
  };
}

/** The rebate column of an insert from unnest, when one of the rows is a rebate (docs/claims.md#rebates); empty otherwise. */
function rebateColumns(rows: MovementRow[]) {
  if (!rows.some((row) => row.movement.rebate)) return { arrays: sql``, names: sql`` };
  return { arrays: sql`, ${rows.map((row) => row.movement.rebate === true)}::boolean[]`, names: sql`, rebate` };
}

/** The level column of an insert from unnest, when one of the rows pays a referral level above 1; empty otherwise (every row is level 1). */
function levelColumns(rows: MovementRow[]) {
  if (!rows.some((row) => (row.movement.level ?? 1) > 1)) return { arrays: sql``, names: sql`` };
  return { arrays: sql`, ${rows.map((row) => row.movement.level ?? 1)}::smallint[]`, names: sql`, level` };
}

/** The rows whose movement the statement did not write (their key's check would have passed 2^256 − 1). */
async function unwritten(trx: Transaction<ClaimDatabase>, projectId: string, rows: MovementRow[]): Promise<MovementRow[]> {
  const written = await trx
    .selectFrom('movements')
    .select(['conversion_id', 'kind', 'identifier_type', 'identifier', 'rebate'])
    .where('project_id', '=', projectId)
    .where('conversion_id', 'in', [...new Set(rows.map((row) => row.conversionId))])
    .execute();
  const done = new Set(written.map((row) => `${row.conversion_id}|${row.kind}|${row.identifier_type}|${row.identifier}|${row.rebate}`));
  const id = (row: MovementRow) =>
    `${row.conversionId}|${row.movement.kind}|${row.movement.beneficiary.identifierType}|${row.movement.beneficiary.identifier}|${row.movement.rebate === true}`;
  return rows.filter((row) => !done.has(id(row)));
}

/**
 * Pays movements whose check would pass 2^256 − 1 (placeInOpenChecks: the key's open check while
 * it fits, then a new one), then appends them pointing at their checks. Four statements whatever
 * the number of keys.
 */
async function appendOverflowing(trx: Transaction<ClaimDatabase>, projectId: string, rows: MovementRow[], now: Date): Promise<number> {
  if (rows.length === 0) return 0;
  const checks = await placeInOpenChecks(
    trx,
    projectId,
    rows.map((row) => ({
      kind: row.movement.kind,
      beneficiary: row.movement.beneficiary,
      currencyId: row.currencyId,
      amount: row.movement.amount,
      order: [row.conversionId, row.movement.kind],
    })),
    now,
  );
  const capped = cappedColumns(rows);
  const rebates = rebateColumns(rows);
  const levels = levelColumns(rows);
  const inserted = await sql<{ movements: string }>`
    WITH moved AS (
      INSERT INTO movements (project_id, conversion_id, kind, identifier_type, identifier, currency_id, amount, claim_check_id, available_at, created_at${capped.names}${rebates.names}${levels.names})
      SELECT ${projectId}, conversion_id, kind, identifier_type, identifier, currency_id, amount, claim_check_id, ${now}, ${now}${capped.names}${rebates.names}${levels.names}
      FROM unnest(${rows.map((row) => row.conversionId)}::text[], ${rows.map((row) => row.movement.kind)}::text[],
                  ${rows.map((row) => row.movement.beneficiary.identifierType)}::text[], ${rows.map((row) => row.movement.beneficiary.identifier)}::text[],
                  ${rows.map((row) => row.currencyId)}::uuid[], ${rows.map((row) => row.movement.amount)}::numeric[], ${checks}::uuid[]${capped.arrays}${rebates.arrays}${levels.arrays})
        AS m(conversion_id, kind, identifier_type, identifier, currency_id, amount, claim_check_id${capped.names}${rebates.names}${levels.names})
      ORDER BY conversion_id, kind${levels.names}
      RETURNING 1
    )
    SELECT count(*) AS movements FROM moved`.execute(trx);
  return Number(inserted.rows[0]?.movements ?? 0);
}
