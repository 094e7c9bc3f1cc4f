import { groupBy } from '../../rules/group-by';
import { type Kysely, sql, type Transaction } from 'kysely';
import { isUniqueViolation } from '../../platform/db/errors';
import type { IdentifierType } from '../../rules/identifiers';
import type { ClaimDatabase } from '../database';
import type { DecisionOutcome, MovementKind, MovementStatus, PendingReason } from '../domain/vocabulary';
import { decideReviews } from './conversion-review.repository';
import { ACCEPTING_CHECK_KEY } from './ledger.repository';
import { growLeaderboards, placeInOpenChecks } from './open-checks';
import { creditPoints, pointCurrencyIds } from './point-balances';
import { retryTransient } from './retry';

/** A movement as its status changes see it. */
interface StatusRow {
  /** int8: read as a bigint. */
  id: bigint | string;
  project_id: string;
  conversion_id: string;
  kind: MovementKind;
  identifier_type: IdentifierType;
  identifier: string;
  currency_id: string;
  /** As paid; makeAvailable takes its reversals off. */
  amount: bigint;
  status: MovementStatus;
  pending_reason: PendingReason | null;
  available_at: Date | null;
  decided_at: Date | null;
  /** When the movement was written: the day its per-day leaderboard row is (docs/claims.md#leaderboards-over-a-date-range). */
  created_at: Date;
}

/** Who decided, and when. */
export interface DecisionBy {
  at: Date;
  /** The API key that decided. */
  by: string;
}

export type Decision = { kind: 'approve' } | { kind: 'decline'; reason: string | null };

/** Reasons a decision acts on: what waits for a person. */
const DECIDABLE: ReadonlySet<PendingReason | null> = new Set<PendingReason | null>(['approval', 'review']);

/**
 * The movements' status changes, each in one transaction that moves the money with it: held
 * movements released when their hold has passed, and an admin's approvals and declines. A movement
 * becoming available enters the open check of its (user, currency, reason) with the payment's rule
 * (a check never passes 2^256 − 1: placeInOpenChecks) and grows the leaderboards; the ledger's
 * trigger lets a status move forward only. Shared rows are taken in one order everywhere: movements,
 * then checks (by project and key), then totals.
 */
export class MovementStatusRepository {
  constructor(private readonly db: Kysely<ClaimDatabase>) {}

  /**
   * Releases up to `limit` movements pending for `hold` whose available_at is at or before `now`:
   * available, into their open checks, leaderboards grown, in one transaction. Rows another run
   * holds are skipped (SKIP LOCKED) and a row already released no longer matches, so concurrent and
   * redelivered runs release each movement once. Answers how many this run released.
   */
  releaseDue(now: Date, limit: number): Promise<number> {
    return retryTransient(
      () =>
        this.db.transaction().execute(async (trx) => {
          const { rows } = await sql<StatusRow>`
            SELECT ${statusColumns('m')}
            FROM movements m
            WHERE m.status = 'pending' AND m.pending_reason = 'hold' AND m.available_at <= ${now}
            ORDER BY m.available_at, m.id
            LIMIT ${limit}
            FOR UPDATE SKIP LOCKED`.execute(trx);
          await makeAvailable(trx, rows, now, null);
          return rows.length;
        }),
      (error) => isUniqueViolation(error, ACCEPTING_CHECK_KEY),
    );
  }

  /**
   * Approves or declines every movement of these conversions that waits for `approval` or `review`,
   * in one transaction, and answers each conversion's outcome. Approved movements whose
   * available_at has passed become available now (into their checks); the others wait for the rest
   * of their hold (`hold`). Declined ones are never paid. A conversion with nothing waiting reports
   * the decision taken before (already_approved, already_declined), or not_pending, or not_found:
   * the same call again changes nothing. A conversion the review rules flagged has its queue row
   * (conversion_reviews) decided in the same transaction. The movements are locked first (in id order), so concurrent
   * decisions of one conversion queue, and the later sees what the earlier did.
   */
  decide(projectId: string, conversionIds: readonly string[], decision: Decision, by: DecisionBy): Promise<Map<string, DecisionOutcome>> {
    return retryTransient(
      () =>
        this.db.transaction().execute(async (trx) => {
          const { rows } = await sql<StatusRow>`
            SELECT ${statusColumns('m')}
            FROM movements m
            WHERE m.project_id = ${projectId} AND m.conversion_id = ANY(${conversionIds}::text[])
            ORDER BY m.id
            FOR UPDATE OF m`.execute(trx);
          const known = new Set(
            (await trx.selectFrom('conversions').select('id').where('project_id', '=', projectId).where('id', 'in', conversionIds).execute()).map(
              (row) => row.id,
            ),
          );
          const byConversion = new Map<string, StatusRow[]>();
          for (const row of rows) byConversion.set(row.conversion_id, [...(byConversion.get(row.conversion_id) ?? []), row]);
          const outcomes = new Map<string, DecisionOutcome>();
          const waiting: StatusRow[] = [];
          for (const id of conversionIds) {
            const movements = byConversion.get(id) ?? [];
            const open = movements.filter((row) => row.status === 'pending' && DECIDABLE.has(row.pending_reason));
            if (open.length > 0) {
              waiting.push(...open);
              outcomes.set(id, decision.kind === 'approve' ? 'approved' : 'declined');
            } else if (!known.has(id)) outcomes.set(id, 'not_found');
            else if (movements.some((row) => row.decided_at !== null && row.status === 'declined')) outcomes.set(id, 'already_declined');
            else if (movements.some((row) => row.decided_at !== null)) outcomes.set(id, 'already_approved');
            else outcomes.set(id, 'not_pending');
          }
          if (waiting.length === 0) return outcomes;
          // The review queue's row of each conversion decided now (one the rules flagged) takes the same decision.
          const decided = [...outcomes].flatMap(([id, outcome]) => (outcome === 'approved' || outcome === 'declined' ? [id] : []));
          await decideReviews(trx, projectId, decided, decision.kind === 'approve' ? 'approved' : 'declined', by.at);
          if (decision.kind === 'decline') {
            await sql`
              UPDATE movements SET status = 'declined', pending_reason = NULL, decided_at = ${by.at}, decided_by = ${by.by},
                                   decline_reason = ${decision.reason}
              WHERE id = ANY(${waiting.map((row) => String(row.id))}::bigint[]) AND status = 'pending'`.execute(trx);
            return outcomes;
          }
          const due = waiting.filter((row) => (row.available_at ?? by.at) <= by.at);
          const later = waiting.filter((row) => (row.available_at ?? by.at) > by.at);
          if (later.length > 0) {
            await sql`
              UPDATE movements SET pending_reason = 'hold', decided_at = ${by.at}, decided_by = ${by.by}
              WHERE id = ANY(${later.map((row) => String(row.id))}::bigint[]) AND status = 'pending'`.execute(trx);
          }
          await makeAvailable(trx, due, by.at, by);
          return outcomes;
        }),
      (error) => isUniqueViolation(error, ACCEPTING_CHECK_KEY),
    );
  }
}

/**
 * The affiliate is unflagged: the movements of its conversions that wait for `review` because of its flag
 * (its and its master's, of conversions the review rules did not flag: no conversion_reviews row) go on
 * as their terms say: available when their available_at has passed (into their checks), else `hold` for
 * the rest of it. Not a decision (decided_at stays unset). Runs in the caller's transaction (the event
 * consumer's); the movements are locked in id order, as decisions lock them, so an admin's decision of
 * the same movements queues behind it or before it and the later finds them no longer waiting.
 * Answers how many movements went on.
 */
export async function releaseFlaggedMovements(trx: Transaction<ClaimDatabase>, projectId: string, affiliateId: string, now: Date): Promise<number> {
  const { rows } = await sql<StatusRow>`
    SELECT ${statusColumns('m')}
    FROM movements m JOIN conversions c ON c.project_id = m.project_id AND c.id = m.conversion_id
    WHERE m.project_id = ${projectId} AND m.status = 'pending' AND m.pending_reason = 'review'
      AND m.kind IN ('affiliate_payout', 'agency_payout') AND c.affiliate_id = ${affiliateId}
      AND NOT EXISTS (SELECT 1 FROM conversion_reviews r WHERE r.project_id = m.project_id AND r.conversion_id = m.conversion_id)
    ORDER BY m.id
    FOR UPDATE OF m`.execute(trx);
  const due = rows.filter((row) => (row.available_at ?? now) <= now);
  const later = rows.filter((row) => (row.available_at ?? now) > now);
  if (later.length > 0) {
    await sql`
      UPDATE movements SET pending_reason = 'hold'
      WHERE id = ANY(${later.map((row) => String(row.id))}::bigint[]) AND status = 'pending'`.execute(trx);
  }
  await makeAvailable(trx, due, now, null);
  return rows.length;
}

const STATUS_COLUMNS = [
  'id',
  'project_id',
  'conversion_id',
  'kind',
  'identifier_type',
  'identifier',
  'currency_id',
  'amount',
  'status',
  'pending_reason',
  'available_at',
  'decided_at',
  'created_at',
] as const;

/** A StatusRow's columns of the movements aliased `alias`. */
const statusColumns = (alias: string) => sql.join(STATUS_COLUMNS.map((column) => sql.ref(`${alias}.${column}`)));

/**
 * What reversals took from these movements, read once the caller holds their locks, in a statement of
 * its own: the locking statement's snapshot can predate a reversal that held the rows and committed
 * while it waited (the reversal only locks a movement, so the wait does not refresh what was read).
 */
async function reversedOf(trx: Transaction<ClaimDatabase>, rows: StatusRow[]): Promise<Map<string, bigint>> {
  const { rows: sums } = await sql<{ movement_id: string; amount: string }>`
    SELECT movement_id::text AS movement_id, sum(amount)::text AS amount FROM movement_reversals
    WHERE movement_id = ANY(${rows.map((row) => String(row.id))}::bigint[]) GROUP BY movement_id`.execute(trx);
  return new Map(sums.map((sum) => [sum.movement_id, BigInt(sum.amount)]));
}

/**
 * Pending movements (locked by the caller) become available net of their reversals (a pending movement
 * a reversal reduced enters its check and the boards net of it): per project (in project order), into
 * the open checks of their keys (points: into their users' points balances, in no check), then marked
 * available with their check (and the decision, when one made them so), then the leaderboards grown.
 */
async function makeAvailable(trx: Transaction<ClaimDatabase>, rows: StatusRow[], now: Date, decision: DecisionBy | null): Promise<void> {
  if (rows.length === 0) return;
  const reversed = await reversedOf(trx, rows);
  const byProject = groupBy(rows, (row) => row.project_id);
  for (const projectId of [...byProject.keys()].sort()) {
    const projectRows = byProject.get(projectId)!;
    const items = projectRows.map((row) => ({
      kind: row.kind,
      beneficiary: { identifier: row.identifier, identifierType: row.identifier_type },
      currencyId: row.currency_id,
      amount: BigInt(row.amount) - (reversed.get(String(row.id)) ?? 0n),
      order: [row.conversion_id, row.kind],
      writtenAt: row.created_at,
    }));
    // Points enter no check: they go to the users' points balances (docs/claims.md#points).
    const points = await pointCurrencyIds(
      trx,
      items.map((item) => item.currencyId),
    );
    const money = items.filter((item) => !points.has(item.currencyId));
    const moneyChecks = await placeInOpenChecks(trx, projectId, money, now);
    let next = 0;
    const checks = items.map((item) => (points.has(item.currencyId) ? null : moneyChecks[next++]!));
    await creditPoints(
      trx,
      projectId,
      items.filter((item) => points.has(item.currencyId)),
      now,
    );
    const decided = decision ? sql`, decided_at = ${decision.at}, decided_by = ${decision.by}` : sql``;
    const updated = await sql`
      UPDATE movements AS m SET status = 'available', pending_reason = NULL, claim_check_id = u.check_id${decided}
      FROM unnest(${projectRows.map((row) => String(row.id))}::bigint[], ${checks}::uuid[]) AS u(id, check_id)
      WHERE m.id = u.id AND m.status = 'pending'`.execute(trx);
    // The rows are locked by this transaction: each is still pending.
    if (Number(updated.numAffectedRows ?? 0) !== projectRows.length) {
      throw new Error(`made ${String(updated.numAffectedRows)} of ${projectRows.length} movements available`);
    }
    await growLeaderboards(trx, projectId, items, now);
  }
}
