import { sql, type Transaction } from 'kysely';
import { capInOrder, type CapItem, totalKey, windowDays } from '../domain/caps';
import { type PlannedMovement, splitRebate } from '../domain/payouts';
import type { MovementKind } from '../domain/vocabulary';
import type { ClaimDatabase } from '../database';
import type { ConversionOutcome } from './conversion-outcome';
import { reversedAmount } from './reversed-amount';

const DAY_MS = 86_400_000;

/** A running total the batch's movements count toward: whose, of which kind, under which terms, since when (null: ever). */
interface Total {
  key: string;
  termsName: string;
  kind: MovementKind;
  identifierType: string;
  identifier: string;
  since: Date | null;
}

/**
 * The batch's outcomes with their terms' caps applied to their movements (docs/claims.md#caps), in
 * the payment's transaction and before its movements are written, so two batches paying the same end
 * user or affiliate at once cannot both spend the same room under a cap:
 *
 * 1. an advisory transaction lock per (project, terms, beneficiary) whose movements count toward a
 *    running total (an end user's lifetime, an affiliate's window), taken in the order of the lock ids
 *    in one statement: a concurrent payment of the same totals waits for this one's commit;
 * 2. the totals before the batch, read after the locks in ONE statement (pending and available
 *    movements count, declined ones do not; the window by the movements' created_at);
 * 3. the batch's movements capped in conversion-id order, cumulatively (capInOrder); an affiliate's reward is
 *    capped whole (its rebate added back), then split again with the user (splitRebate).
 *
 * Outcomes are expected in conversion-id order (record sorts them). A batch whose caps are only
 * per conversion takes no lock and reads nothing.
 */
export async function applyCaps(
  trx: Transaction<ClaimDatabase>,
  projectId: string,
  outcomes: ConversionOutcome[],
  now: Date,
): Promise<ConversionOutcome[]> {
  const items: CapItem[] = [];
  const totals = new Map<string, Total>();
  for (const outcome of outcomes) {
    if (outcome.caps === null) continue;
    const { termsName, caps } = outcome.caps;
    const rebate = rebateOf(outcome);
    for (const movement of outcome.movements) {
      // A rebate is capped as part of its affiliate's reward, before the split (docs/claims.md#rebates).
      if (movement.rebate) continue;
      const key = totalKey(termsName, caps, movement.kind, movement.beneficiary);
      const amount = rebate && carriesRebate(movement) ? movement.amount + rebate.amount : movement.amount;
      items.push({ amount, kind: movement.kind, caps, key });
      if (key === null || totals.has(key)) continue;
      const days = windowDays(caps, movement.kind);
      totals.set(key, {
        key,
        termsName,
        kind: movement.kind,
        identifierType: movement.beneficiary.identifierType,
        identifier: movement.beneficiary.identifier,
        since: days === null ? null : new Date(now.getTime() - days * DAY_MS),
      });
    }
  }
  const prior = totals.size === 0 ? new Map<string, bigint>() : await priorTotals(trx, projectId, [...totals.values()]);
  const results = capInOrder(items, prior);
  let next = 0;
  return outcomes.map((outcome) => {
    if (outcome.caps === null) return outcome;
    const rebate = rebateOf(outcome);
    const movements = outcome.movements.flatMap((movement): PlannedMovement[] => {
      if (movement.rebate) return [];
      const result = results[next++]!;
      const capped = result.cappedBy === null ? {} : { capped: { amount: result.capped, by: result.cappedBy } };
      if (!rebate || !carriesRebate(movement)) return [result.cappedBy === null ? movement : { ...movement, amount: result.amount, ...capped }];
      // The capped reward split again: a rebate floored to nothing is no movement.
      const split = splitRebate(result.amount, rebate.bps);
      const parts: PlannedMovement[] = [{ ...movement, amount: split.affiliate, ...capped }];
      if (split.rebate > 0n) parts.push({ ...rebate.movement, amount: split.rebate });
      return parts;
    });
    return { ...outcome, movements };
  });
}

/** The level-1 affiliate's payout: the one a rebate is split from (an upline's level never gives one, docs/claims.md#referral-levels). */
function carriesRebate(movement: PlannedMovement): boolean {
  return movement.kind === 'affiliate_payout' && (movement.level ?? 1) === 1;
}

/** The outcome's rebate movement (planPayouts split it from the affiliate's reward), with its rate; null: none. */
function rebateOf(outcome: ConversionOutcome): { movement: PlannedMovement; amount: bigint; bps: number } | null {
  const movement = outcome.movements.find((candidate) => candidate.rebate);
  if (!movement || !outcome.attribution) return null;
  return { movement, amount: movement.amount, bps: outcome.attribution.rebateBps };
}

/** Locks the totals' beneficiaries (per project and terms), then reads what each total holds so far. */
async function priorTotals(trx: Transaction<ClaimDatabase>, projectId: string, totals: Total[]): Promise<Map<string, bigint>> {
  const lockKeys = [
    ...new Set(totals.map((total) => JSON.stringify(['claim.caps', projectId, total.termsName, total.identifierType, total.identifier]))),
  ];
  // The ids sorted before any is locked: every payment takes the locks it shares with another in one order.
  await sql`
    SELECT pg_advisory_xact_lock(lock_id)
    FROM (SELECT DISTINCT hashtextextended(lock_key, 0) AS lock_id FROM unnest(${lockKeys}::text[]) AS lock_key ORDER BY lock_id) AS ordered`.execute(
    trx,
  );
  // Raw: a lateral sum per total over the user's movements (their index) joined to their conversions' names.
  const { rows } = await sql<{ key: string; total: string }>`
    SELECT t.key, coalesce(sum(m.amount), 0)::text AS total
    FROM unnest(${totals.map((t) => t.key)}::text[], ${totals.map((t) => t.termsName)}::text[], ${totals.map((t) => t.kind)}::text[],
                ${totals.map((t) => t.identifierType)}::text[], ${totals.map((t) => t.identifier)}::text[],
                ${totals.map((t) => t.since)}::timestamptz[])
      AS t(key, terms_name, kind, identifier_type, identifier, since)
    LEFT JOIN LATERAL (
      -- Net of reversals: a refunded conversion's earnings no longer count toward a cap. A reversal committing meanwhile
      -- takes no cap lock; it can only lower a total, so at worst this caps more than it would have, never pays more.
      -- An affiliate's total counts its rewards before their rebates were split off (the rebates of its movements'
      -- conversions, by the ledger's unique key; only at level 1, the level a rebate comes from); an end user's counts no
      -- rebate (docs/claims.md#rebates). An affiliate's window counts its affiliate_payouts of every referral level.
      SELECT m.amount - ${reversedAmount('m')} + CASE WHEN t.kind = 'affiliate_payout' AND m.level = 1 THEN coalesce((
               SELECT sum(rb.amount - ${reversedAmount('rb')}) FROM movements rb
               WHERE rb.project_id = m.project_id AND rb.conversion_id = m.conversion_id AND rb.kind = 'end_user_payout' AND rb.rebate
                 AND rb.status <> 'declined'), 0) ELSE 0 END AS amount
      FROM movements m
      JOIN conversions c ON c.project_id = m.project_id AND c.id = m.conversion_id
      WHERE m.project_id = ${projectId} AND m.identifier = t.identifier AND m.identifier_type = t.identifier_type
        AND m.kind = t.kind AND NOT m.rebate AND m.status <> 'declined' AND c.name = t.terms_name
        AND (t.since IS NULL OR m.created_at > t.since)
    ) AS m ON true
    GROUP BY t.key`.execute(trx);
  return new Map(rows.map((row) => [row.key, BigInt(row.total)]));
}
