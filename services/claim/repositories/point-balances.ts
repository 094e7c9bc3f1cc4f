import { type Kysely, sql, type Transaction } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import type { Page } from '../../rules/pagination';
import type { ClaimDatabase } from '../database';
import { type PagedRecords, readPage } from '../../platform/db/paged-list';

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
 * A reversal takes points back from the balance: at most what the movement credited, so the balance
 * stays at or above zero (point_balances' CHECK).
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
  const changed = sql`
    SELECT * FROM unnest(${rows.map((row) => row.currencyId)}::uuid[], ${rows.map((row) => row.beneficiary.identifierType)}::text[],
                         ${rows.map((row) => row.beneficiary.identifier)}::text[], ${rows.map((row) => row.amount)}::numeric[])
      AS d(currency_id, identifier_type, identifier, amount)
    ORDER BY currency_id, identifier, identifier_type`;
  if (column === 'credited') {
    await sql`
      INSERT INTO point_balances AS pb (project_id, currency_id, identifier_type, identifier, balance, credited, taken_back, updated_at)
      SELECT ${projectId}, d.currency_id, d.identifier_type, d.identifier, d.amount, d.amount, 0, ${now} FROM (${changed}) AS d
      ON CONFLICT (project_id, currency_id, identifier, identifier_type)
      DO UPDATE SET balance = pb.balance + excluded.credited, credited = pb.credited + excluded.credited, updated_at = excluded.updated_at`.execute(
      trx,
    );
    return;
  }
  // The rows exist: what is taken back was credited. An UPDATE, not an upsert: the insert half of an
  // upsert is checked (balance >= 0) before the conflict is found.
  const updated = await sql`
    UPDATE point_balances AS pb SET balance = pb.balance - d.amount, taken_back = pb.taken_back + d.amount, updated_at = ${now}
    FROM (${changed}) AS d
    WHERE pb.project_id = ${projectId} AND pb.currency_id = d.currency_id AND pb.identifier = d.identifier AND pb.identifier_type = d.identifier_type`.execute(
    trx,
  );
  if (Number(updated.numAffectedRows ?? 0) !== rows.length)
    throw new Error(`took points back from ${String(updated.numAffectedRows)} of ${rows.length} balances`);
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

/** A user's points in a point currency. */
export interface PointBalanceRecord {
  user: UserIdentifier;
  balance: bigint;
  credited: bigint;
  takenBack: bigint;
  /** Null for a user never credited (an all-zero row). */
  updatedAt: Date | null;
}

/** The points balances' reads: the top of a currency's balances (point_balances_top_idx), one user's. */
export class PointBalanceRepository {
  constructor(private readonly db: Kysely<ClaimDatabase>) {}

  async top(projectId: string, currencyId: string, page: Page): Promise<PagedRecords<PointBalanceRecord>> {
    const { records, total } = await readPage(
      this.db.selectFrom('point_balances').where('project_id', '=', projectId).where('currency_id', '=', currencyId),
      (matching) =>
        matching
          .select(['identifier', 'identifier_type', 'balance', 'credited', 'taken_back', 'updated_at'])
          .orderBy('balance', 'desc')
          .orderBy('identifier')
          .orderBy('identifier_type'),
      page,
    );
    return { records: records.map(toBalance), total };
  }

  async of(projectId: string, currencyId: string, user: UserIdentifier): Promise<PointBalanceRecord> {
    const row = await this.db
      .selectFrom('point_balances')
      .select(['identifier', 'identifier_type', 'balance', 'credited', 'taken_back', 'updated_at'])
      .where('project_id', '=', projectId)
      .where('currency_id', '=', currencyId)
      .where('identifier', '=', user.identifier)
      .where('identifier_type', '=', user.identifierType)
      .executeTakeFirst();
    return row ? toBalance(row) : { user, balance: 0n, credited: 0n, takenBack: 0n, updatedAt: null };
  }
}

function toBalance(row: {
  identifier: string;
  identifier_type: UserIdentifier['identifierType'];
  balance: bigint;
  credited: bigint;
  taken_back: bigint;
  updated_at: Date;
}): PointBalanceRecord {
  return {
    user: { identifier: row.identifier, identifierType: row.identifier_type },
    balance: BigInt(row.balance),
    credited: BigInt(row.credited),
    takenBack: BigInt(row.taken_back),
    updatedAt: row.updated_at,
  };
}
