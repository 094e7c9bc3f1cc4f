import { sql, type Transaction } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import type { ClaimDatabase } from '../database';

/** Points that became available (credited) or were taken back from the balance: whose, in which point currency, how many. */
export interface PointChange {
  beneficiary: UserIdentifier;
  currencyId: string;
  amount: bigint;
}

/**
 * Points that became available go to their users' balances (docs/claims.md#points), not to a claim
 * check: one upsert, rows in key order (as every writer of shared rows takes them). Runs in the
 * transaction that makes the movements available.
 */
export function creditPoints(trx: Transaction<ClaimDatabase>, projectId: string, changes: readonly PointChange[], now: Date): Promise<void> {
  return applyPoints(trx, projectId, changes, 'credited', now);
}

/**
 * A reversal takes points back from the balance whatever it holds: it may go below zero (the user owes
 * them, as money's debt; the next credit pays it first because a balance is one sum).
 */
export function takeBackPoints(trx: Transaction<ClaimDatabase>, projectId: string, changes: readonly PointChange[], now: Date): Promise<void> {
  return applyPoints(trx, projectId, changes, 'taken_back', now);
}

async function applyPoints(
  trx: Transaction<ClaimDatabase>,
  projectId: string,
  changes: readonly PointChange[],
  column: 'credited' | 'taken_back',
  now: Date,
): Promise<void> {
  const byKey = new Map<string, PointChange>();
  for (const change of changes) {
    const key = [change.currencyId, change.beneficiary.identifier, change.beneficiary.identifierType].join('|');
    const entry = byKey.get(key);
    byKey.set(key, entry ? { ...entry, amount: entry.amount + change.amount } : change);
  }
  const rows = [...byKey.values()].filter((row) => row.amount > 0n);
  if (rows.length === 0) return;
  const sign = column === 'credited' ? sql`` : sql`-`;
  const credited = column === 'credited' ? sql`d.amount` : sql`0`;
  const takenBack = column === 'taken_back' ? sql`d.amount` : sql`0`;
  await sql`
    INSERT INTO point_balances AS pb (project_id, currency_id, identifier_type, identifier, balance, credited, taken_back, updated_at)
    SELECT ${projectId}, d.currency_id, d.identifier_type, d.identifier, ${sign}d.amount, ${credited}, ${takenBack}, ${now}
    FROM unnest(${rows.map((row) => row.currencyId)}::uuid[], ${rows.map((row) => row.beneficiary.identifierType)}::text[],
                ${rows.map((row) => row.beneficiary.identifier)}::text[], ${rows.map((row) => row.amount)}::numeric[])
      AS d(currency_id, identifier_type, identifier, amount)
    ORDER BY d.currency_id, d.identifier, d.identifier_type
    ON CONFLICT (project_id, currency_id, identifier, identifier_type)
    DO UPDATE SET balance = pb.balance ${column === 'credited' ? sql`+` : sql`-`} ${column === 'credited' ? sql`excluded.credited` : sql`excluded.taken_back`},
                  ${sql.ref(column)} = pb.${sql.ref(column)} + excluded.${sql.ref(column)},
                  updated_at = excluded.updated_at`.execute(trx);
}

/** Which of these currencies are point currencies (read where the caller has no currency records at hand: releases, decisions). */
export async function pointCurrencyIds(trx: Transaction<ClaimDatabase>, currencyIds: readonly string[]): Promise<ReadonlySet<string>> {
  if (currencyIds.length === 0) return new Set();
  const rows = await trx
    .selectFrom('currencies')
    .select('id')
    .where('id', 'in', [...new Set(currencyIds)])
    .where('type', '=', 'point')
    .execute();
  return new Set(rows.map((row) => row.id));
}
