import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import { MAX_AMOUNT } from '../../rules/money';
import type { UserIdentifier } from '../../rules/identifiers';
import type { ClaimDatabase } from '../database';
import { REASON_OF_KIND, type MovementKind } from '../domain/vocabulary';

/** One amount to place in an open claim check: whose, in which currency, of which kind, and its place in the order. */
export interface Placement {
  kind: MovementKind;
  beneficiary: UserIdentifier;
  currencyId: string;
  amount: bigint;
  /** The order amounts of one key fill its checks in (the ledger's: conversion, then kind). */
  order: readonly string[];
}

/** The key of an amount's open check: (identifier, identifier_type, currency, reason), in the ledger's key order. */
const checkKey = (item: Placement) =>
  [item.beneficiary.identifier, item.beneficiary.identifierType, item.currencyId, REASON_OF_KIND[item.kind]] as const;
const byKey = (a: readonly string[], b: readonly string[]) => {
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return 0;
};

/** A check a key's amounts go to: the open one that takes movements, or a new one. */
interface Fill {
  id: string;
  existing: boolean;
  /** What the check holds once these amounts are in it. */
  amount: bigint;
  /** The user's debt carried on it once these amounts paid what they could of it. */
  debt: bigint;
  count: number;
  full: boolean;
}

/**
 * Places amounts in the open claim checks of their (user, currency, reason), key by key in the
 * ledger's key order, each key's amounts in their `order`: each goes to the key's open check that
 * takes movements while it fits; the one that does not fit makes that check full (it stops taking
 * movements, stays open and closable) and opens a new check, which takes it and those after it. A
 * single amount never passes 2^256 − 1, so every check written here is signable. An amount entering
 * a check pays the user's debt carried on it first (migration 0012). The open checks
 * are locked (FOR UPDATE, in key order) before they are read. Answers the check of each item, in
 * the items' order. Three statements whatever the number of keys.
 *
 * A new check of a key a concurrent transaction opened one for first fails on the partial unique
 * index ACCEPTING_CHECK_KEY: the caller runs its transaction again (retryTransient).
 */
export async function placeInOpenChecks(trx: Transaction<ClaimDatabase>, projectId: string, items: Placement[], now: Date): Promise<string[]> {
  if (items.length === 0) return [];
  const groups = new Map<string, { key: readonly string[]; items: Array<{ item: Placement; index: number }> }>();
  items.forEach((item, index) => {
    const key = checkKey(item);
    const name = key.join('|');
    const group = groups.get(name) ?? { key, items: [] };
    group.items.push({ item, index });
    groups.set(name, group);
  });
  const keys = [...groups.values()].sort((a, b) => byKey(a.key, b.key));
  const { rows: open } = await sql<{
    id: string;
    identifier: string;
    identifier_type: string;
    currency_id: string;
    reason: string;
    amount: bigint;
    debt: bigint;
  }>`
    SELECT cc.id, cc.identifier, cc.identifier_type, cc.currency_id, cc.reason, cc.amount, cc.debt
    FROM claim_checks cc
    JOIN unnest(${keys.map((g) => g.key[0])}::text[], ${keys.map((g) => g.key[1])}::text[], ${keys.map((g) => g.key[2])}::uuid[], ${keys.map((g) => g.key[3])}::text[])
      AS k(identifier, identifier_type, currency_id, reason) USING (identifier, identifier_type, currency_id, reason)
    WHERE cc.project_id = ${projectId} AND cc.status = 'open' AND cc.full_at IS NULL
    ORDER BY cc.identifier, cc.identifier_type, cc.currency_id, cc.reason
    FOR UPDATE OF cc`.execute(trx);
  const openOf = new Map(open.map((check) => [[check.identifier, check.identifier_type, check.currency_id, check.reason].join('|'), check]));

  const fills: Array<{ key: readonly string[]; fill: Fill }> = [];
  const placed: string[] = new Array<string>(items.length);
  for (const { key, items: keyItems } of keys) {
    const existing = openOf.get(key.join('|'));
    let current: Fill | undefined = existing && {
      id: existing.id,
      existing: true,
      amount: BigInt(existing.amount),
      debt: BigInt(existing.debt),
      count: 0,
      full: false,
    };
    if (current) fills.push({ key, fill: current });
    const ordered = [...keyItems].sort((a, b) => byKey(a.item.order, b.item.order));
    for (const { item, index } of ordered) {
      if (!current || current.amount + item.amount > MAX_AMOUNT) {
        if (current) current.full = true;
        current = { id: randomUUID(), existing: false, amount: 0n, debt: 0n, count: 0, full: false };
        fills.push({ key, fill: current });
      }
      // Debt first: a check with debt holds nothing (debt > 0 implies amount 0), so it never becomes full here.
      const repaid = current.debt < item.amount ? current.debt : item.amount;
      current.debt -= repaid;
      current.amount += item.amount - repaid;
      current.count += 1;
      placed[index] = current.id;
    }
  }

  // The existing checks first: one made full leaves the key's place to the new check that takes movements.
  const grown = fills.filter(({ fill }) => fill.existing && (fill.count > 0 || fill.full));
  const made = fills.filter(({ fill }) => !fill.existing);
  if (grown.length > 0) {
    await sql`
      UPDATE claim_checks AS cc
      SET amount = u.amount, debt = u.debt, movements_count = cc.movements_count + u.count, updated_at = ${now},
          full_at = CASE WHEN u.is_full THEN ${now}::timestamptz ELSE cc.full_at END
      FROM unnest(${grown.map(({ fill }) => fill.id)}::uuid[], ${grown.map(({ fill }) => fill.amount)}::numeric[], ${grown.map(({ fill }) => fill.debt)}::numeric[],
                  ${grown.map(({ fill }) => fill.count)}::integer[], ${grown.map(({ fill }) => fill.full)}::boolean[]) AS u(id, amount, debt, count, is_full)
      WHERE cc.id = u.id`.execute(trx);
  }
  if (made.length > 0) {
    await sql`
      INSERT INTO claim_checks (id, project_id, identifier, identifier_type, currency_id, reason, status, amount, movements_count, created_at, updated_at, full_at)
      SELECT id, ${projectId}, identifier, identifier_type, currency_id, reason, 'open', amount, count, ${now}, ${now}, CASE WHEN is_full THEN ${now}::timestamptz END
      FROM unnest(${made.map(({ fill }) => fill.id)}::uuid[], ${made.map(({ key }) => key[0])}::text[], ${made.map(({ key }) => key[1])}::text[],
                  ${made.map(({ key }) => key[2])}::uuid[], ${made.map(({ key }) => key[3])}::text[], ${made.map(({ fill }) => fill.amount)}::numeric[],
                  ${made.map(({ fill }) => fill.count)}::integer[], ${made.map(({ fill }) => fill.full)}::boolean[])
        AS n(id, identifier, identifier_type, currency_id, reason, amount, count, is_full)`.execute(trx);
  }
  return placed;
}

/**
 * The leaderboards' running totals (and their sizes) grow by the counted kinds (affiliate_payout,
 * end_user_payout) of amounts that became available, shared rows written in key order: what the
 * payment's statement does for the movements it writes available, for movements that become
 * available later (released from a hold, approved).
 */
export async function growLeaderboards(
  trx: Transaction<ClaimDatabase>,
  projectId: string,
  items: ReadonlyArray<Pick<Placement, 'kind' | 'beneficiary' | 'currencyId' | 'amount'> & { writtenAt: Date }>,
  now: Date,
): Promise<void> {
  const counted = items.filter((item) => item.kind === 'affiliate_payout' || item.kind === 'end_user_payout');
  if (counted.length === 0) return;
  // The per-day boards grow on each movement's own day (when it was written), not today's (docs/claims.md#leaderboards-over-a-date-range).
  await sql`
    WITH planned AS (
      SELECT * FROM unnest(
        ${counted.map((item) => item.kind)}::text[], ${counted.map((item) => item.beneficiary.identifierType)}::text[],
        ${counted.map((item) => item.beneficiary.identifier)}::text[], ${counted.map((item) => item.currencyId)}::uuid[],
        ${counted.map((item) => item.amount)}::numeric[], ${counted.map((item) => item.writtenAt)}::timestamptz[]
      ) AS p(kind, identifier_type, identifier, currency_id, amount, written_at)
    ),
    totals AS (
      INSERT INTO leaderboard_totals AS lt (project_id, currency_id, user_type, identifier_type, identifier, total_amount, total_attributions, updated_at)
      SELECT ${projectId}, currency_id, CASE kind WHEN 'affiliate_payout' THEN 'affiliate' ELSE 'end_user' END AS user_type,
             identifier_type, identifier, sum(amount), count(*), ${now}
      FROM planned
      GROUP BY currency_id, user_type, identifier_type, identifier
      ORDER BY currency_id, user_type, identifier_type, identifier
      ON CONFLICT (project_id, currency_id, user_type, identifier_type, identifier)
      DO UPDATE SET total_amount = lt.total_amount + excluded.total_amount,
                    total_attributions = lt.total_attributions + excluded.total_attributions,
                    updated_at = excluded.updated_at
      RETURNING currency_id, user_type, (xmax = 0) AS inserted
    ),
    days AS (
      INSERT INTO leaderboard_days AS ld (project_id, currency_id, user_type, day, identifier_type, identifier, total_amount, total_attributions)
      SELECT ${projectId}, currency_id, CASE kind WHEN 'affiliate_payout' THEN 'affiliate' ELSE 'end_user' END AS user_type,
             (written_at AT TIME ZONE 'UTC')::date AS day, identifier_type, identifier, sum(amount), count(*)
      FROM planned
      GROUP BY currency_id, user_type, day, identifier_type, identifier
      ORDER BY currency_id, user_type, day, identifier_type, identifier
      ON CONFLICT (project_id, currency_id, user_type, day, identifier_type, identifier)
      DO UPDATE SET total_amount = ld.total_amount + excluded.total_amount,
                    total_attributions = ld.total_attributions + excluded.total_attributions
    )
    INSERT INTO leaderboard_sizes AS ls (project_id, currency_id, user_type, entries)
    SELECT ${projectId}, currency_id, user_type, count(*) FROM totals WHERE inserted
    GROUP BY currency_id, user_type
    ORDER BY currency_id, user_type
    ON CONFLICT (project_id, currency_id, user_type) DO UPDATE SET entries = ls.entries + excluded.entries`.execute(trx);
}
