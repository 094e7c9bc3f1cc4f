import { type Kysely, sql, type Transaction } from 'kysely';
import { isUniqueViolation } from '../../platform/db/errors';
import { appendOutboxEvents } from '../../platform/outbox/append';
import type { IdentifierType, UserIdentifier } from '../../rules/identifiers';
import type { ClaimDatabase } from '../database';
import { REASON_OF_KIND, type ClaimCheckStatus, type MovementKind, type MovementStatus, type ReversedFrom } from '../domain/vocabulary';
import { ACCEPTING_CHECK_KEY } from './ledger.repository';
import { takeBackPoints } from './point-balances';
import { retryTransient } from './retry';

/** A whole conversion, in basis points: the most the shares of its reversals add up to. */
export const WHOLE_BPS = 10_000;

/** What one reversal took from one movement. */
export interface MovementReversalRecord {
  movementId: string;
  kind: MovementKind;
  /** Whether the movement is a rebate (docs/claims.md#rebates). */
  rebate: boolean;
  /** The movement's referral level (an affiliate_payout's 1..4; 1 on other kinds, docs/claims.md#referral-levels). */
  level: number;
  beneficiary: UserIdentifier;
  currencyId: string;
  amount: bigint;
  /** Where the money was: pending (the movement becomes available net of it), or available (in a check). */
  was: ReversedFrom;
  claimCheckId: string | null;
  /** What left the still-open check holding it. */
  fromCheck: bigint;
  /** What became the user's debt (the voucher was out, claimed or expired, or the check held less). */
  toDebt: bigint;
  /** Of an available point movement (in no check): what came out of the user's points balance (docs/claims.md#points). */
  fromPoints: bigint;
}

export interface ReversalRecord {
  reversalId: string;
  conversionId: string;
  shareBps: number;
  reason: string;
  /** The reversed share of the conversion's volume and revenue (USD decimal strings); null when it had none. */
  volumeUsd: string | null;
  revenueUsd: string | null;
  reversedBy: string;
  createdAt: Date;
  movements: MovementReversalRecord[];
}

export interface ReversalRequest {
  projectId: string;
  conversionId: string;
  reversalId: string;
  shareBps: number;
  reason: string;
  reversedBy: string;
}

/** What a reversal request came to; the domain turns the refusals into errors. */
export type ReversalOutcome =
  | { kind: 'reversed' | 'replayed'; reversal: ReversalRecord }
  | { kind: 'conversion_not_found' }
  | { kind: 'not_processed' }
  | { kind: 'reversal_id_reused'; reversal: ReversalRecord }
  | { kind: 'share_exceeded'; reversedBps: number };

interface LockedConversion {
  id: string;
  name: string;
  status: string;
  identifier_type: IdentifierType;
  identifier: string;
  occurred_at: Date;
  volume_usd: string | null;
  revenue_usd: string | null;
  currency_id: string | null;
  affiliate_id: string | null;
  affiliate_identifier_type: IdentifierType | null;
  affiliate_identifier: string | null;
  master_id: string | null;
  master_identifier_type: IdentifierType | null;
  master_identifier: string | null;
}

interface LockedMovement {
  id: string;
  kind: MovementKind;
  rebate: boolean;
  level: number;
  identifier_type: IdentifierType;
  identifier: string;
  currency_id: string;
  amount: bigint;
  status: MovementStatus;
  claim_check_id: string | null;
  check_status: ClaimCheckStatus | null;
}

/**
 * Reversals (docs/claims.md#reversals): each is ONE transaction that takes back a share of a
 * conversion's movements as new rows and moves the money with it. The conversion row is locked
 * first (so reversals of one conversion queue, and the later sees the earlier's share), then its
 * movements (in id order, as releases and decisions lock them), then the open checks concerned (in
 * the ledger's key order), then the accepting checks that carry debt, then the leaderboard totals.
 */
export class ReversalRepository {
  constructor(private readonly db: Kysely<ClaimDatabase>) {}

  reverse(request: ReversalRequest, now: Date): Promise<ReversalOutcome> {
    return retryTransient(
      () => this.db.transaction().execute((trx) => reverseIn(trx, request, now)),
      // Two conversions reversed at once under one new reversal_id: the loser runs again and finds it taken.
      (error) => isUniqueViolation(error, 'conversion_reversals_pkey') || isUniqueViolation(error, ACCEPTING_CHECK_KEY),
    );
  }

  /** A conversion's reversals, oldest first, each with what it took from each movement. */
  async ofConversion(projectId: string, conversionId: string): Promise<ReversalRecord[]> {
    const heads = await this.db
      .selectFrom('conversion_reversals')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('conversion_id', '=', conversionId)
      .orderBy('created_at')
      .orderBy('reversal_id')
      .execute();
    if (heads.length === 0) return [];
    const parts = await movementParts(
      this.db,
      projectId,
      heads.map((head) => head.reversal_id),
    );
    return heads.map((head) => toRecord(head, parts.get(head.reversal_id) ?? []));
  }
}

async function reverseIn(trx: Transaction<ClaimDatabase>, request: ReversalRequest, now: Date): Promise<ReversalOutcome> {
  const { projectId, conversionId } = request;
  const { rows: conversions } = await sql<LockedConversion>`
    SELECT id, name, status, identifier_type, identifier, occurred_at, volume_usd::text AS volume_usd, revenue_usd::text AS revenue_usd,
           currency_id, affiliate_id, affiliate_identifier_type, affiliate_identifier, master_id, master_identifier_type, master_identifier
    FROM conversions WHERE project_id = ${projectId} AND id = ${conversionId}
    FOR NO KEY UPDATE`.execute(trx);
  const conversion = conversions[0];
  if (!conversion) return { kind: 'conversion_not_found' };

  const existing = await trx
    .selectFrom('conversion_reversals')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('reversal_id', '=', request.reversalId)
    .executeTakeFirst();
  if (existing) {
    const reversal = toRecord(existing, (await movementParts(trx, projectId, [existing.reversal_id])).get(existing.reversal_id) ?? []);
    const same = existing.conversion_id === conversionId && existing.share_bps === request.shareBps && existing.reason === request.reason;
    return same ? { kind: 'replayed', reversal } : { kind: 'reversal_id_reused', reversal };
  }
  // Accepted (not paid yet) or failed (paid nothing, and no figure counted it: no processed event): nothing to take back.
  if (conversion.status === 'accepted' || conversion.status === 'failed') return { kind: 'not_processed' };

  const shares = await trx
    .selectFrom('conversion_reversals')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('share_bps'), sql<number>`0`).as('reversed'))
    .where('project_id', '=', projectId)
    .where('conversion_id', '=', conversionId)
    .executeTakeFirstOrThrow();
  const reversedBps = Number(shares.reversed);
  if (reversedBps + request.shareBps > WHOLE_BPS) return { kind: 'share_exceeded', reversedBps };

  const { rows: movements } = await sql<LockedMovement>`
    SELECT m.id::text AS id, m.kind, m.rebate, m.level, m.identifier_type, m.identifier, m.currency_id, m.amount, m.status, m.claim_check_id, cc.status AS check_status
    FROM movements m LEFT JOIN claim_checks cc ON cc.id = m.claim_check_id
    WHERE m.project_id = ${projectId} AND m.conversion_id = ${conversionId}
    ORDER BY m.id
    FOR UPDATE OF m`.execute(trx);
  const parts = await takeBack(trx, projectId, movements, request.shareBps, now);

  const { rows: figures } = await sql<{ volume_usd: string | null; revenue_usd: string | null }>`
    SELECT trim_scale(${conversion.volume_usd}::numeric * ${request.shareBps} * 0.0001)::text AS volume_usd,
           trim_scale(${conversion.revenue_usd}::numeric * ${request.shareBps} * 0.0001)::text AS revenue_usd`.execute(trx);
  const head = {
    project_id: projectId,
    reversal_id: request.reversalId,
    conversion_id: conversionId,
    share_bps: request.shareBps,
    reason: request.reason,
    volume_usd: figures[0]!.volume_usd,
    revenue_usd: figures[0]!.revenue_usd,
    reversed_by: request.reversedBy,
    created_at: now,
  };
  await trx.insertInto('conversion_reversals').values(head).execute();
  if (parts.length > 0) {
    await trx
      .insertInto('movement_reversals')
      .values(
        parts.map((part) => ({
          project_id: projectId,
          reversal_id: request.reversalId,
          movement_id: part.movementId,
          amount: part.amount,
          was: part.was,
          claim_check_id: part.claimCheckId,
          from_check: part.fromCheck,
          to_debt: part.toDebt,
          from_points: part.fromPoints,
          created_at: now,
        })),
      )
      .execute();
  }
  const reversal = toRecord(head, parts);
  // The upline frozen with the attribution (never changes): the event carries it as the processed one did.
  const upline =
    conversion.affiliate_id === null
      ? []
      : await trx
          .selectFrom('conversion_upline')
          .select(['level', 'affiliate_id', 'identifier_type', 'identifier'])
          .where('project_id', '=', projectId)
          .where('conversion_id', '=', conversionId)
          .orderBy('level')
          .execute();
  await appendOutboxEvents(trx, now, [reversedEvent(projectId, conversion, upline, reversal)]);
  return { kind: 'reversed', reversal };
}

/**
 * Takes floor(amount × share / 10000) back from each movement, by where its money is: pending -> the
 * movement will become available net of it; available in a check still open -> out of that check,
 * as far as it holds it; the rest, and all of an amount whose voucher is out (closed, claimed,
 * expired and credited back), -> the user's debt in that currency and kind, netted at once against
 * the accepting open check and carried on it. A declined movement paid nothing and gives nothing
 * back. An available point movement is in no check: its share leaves the user's points balance
 * (takeBackPoints). The leaderboards shrink by what available counted amounts gave back.
 */
async function takeBack(
  trx: Transaction<ClaimDatabase>,
  projectId: string,
  movements: LockedMovement[],
  shareBps: number,
  now: Date,
): Promise<MovementReversalRecord[]> {
  const parts: MovementReversalRecord[] = [];
  for (const movement of movements) {
    const amount = (BigInt(movement.amount) * BigInt(shareBps)) / BigInt(WHOLE_BPS);
    if (amount === 0n || movement.status === 'declined') continue;
    parts.push({
      movementId: movement.id,
      kind: movement.kind,
      rebate: movement.rebate,
      level: movement.level,
      beneficiary: { identifier: movement.identifier, identifierType: movement.identifier_type },
      currencyId: movement.currency_id,
      amount,
      was: movement.status === 'pending' ? 'pending' : 'available',
      claimCheckId: movement.status === 'pending' ? null : movement.claim_check_id,
      fromCheck: 0n,
      toDebt: 0n,
      fromPoints: 0n,
    });
  }
  // An available movement in no check is a point movement (migration 0020): its points leave the balance.
  const points = parts.filter((part) => part.was === 'available' && part.claimCheckId === null);
  for (const part of points) part.fromPoints = part.amount;
  await takeBackPoints(trx, projectId, points, now);
  const available = parts.filter((part) => part.was === 'available' && part.claimCheckId !== null);
  if (available.length === 0) {
    await shrinkLeaderboards(trx, projectId, points);
    return parts;
  }

  const checkOf = new Map(movements.map((movement) => [movement.id, movement.check_status]));
  // A check read closed, claimed or expired stays out; one read open, or none (the movement became available, in a check, while
  // this waited for its lock: the join kept what it read before), is locked and read again below.
  const openIds = [...new Set(available.filter((part) => (checkOf.get(part.movementId) ?? 'open') === 'open').map((part) => part.claimCheckId!))];
  const holds = new Map<string, bigint>();
  if (openIds.length > 0) {
    const { rows } = await sql<{ id: string; amount: bigint; status: ClaimCheckStatus }>`
      SELECT id, amount, status FROM claim_checks WHERE id = ANY(${openIds}::uuid[])
      ORDER BY identifier, identifier_type, currency_id, reason, id
      FOR UPDATE`.execute(trx);
    // Locked now: a close that committed between the movements' read and this lock made the check closed.
    for (const row of rows) if (row.status === 'open') holds.set(row.id, BigInt(row.amount));
  }
  for (const part of available) {
    const held = holds.get(part.claimCheckId!);
    const fromCheck = held === undefined ? 0n : held < part.amount ? held : part.amount;
    if (held !== undefined) holds.set(part.claimCheckId!, held - fromCheck);
    part.fromCheck = fromCheck;
    part.toDebt = part.amount - fromCheck;
  }
  const shrunk = [...holds].filter(([id]) => available.some((part) => part.claimCheckId === id && part.fromCheck > 0n));
  if (shrunk.length > 0) {
    await sql`
      UPDATE claim_checks AS cc SET amount = u.amount, updated_at = ${now}
      FROM unnest(${shrunk.map(([id]) => id)}::uuid[], ${shrunk.map(([, amount]) => amount)}::numeric[]) AS u(id, amount)
      WHERE cc.id = u.id`.execute(trx);
  }
  await carryDebt(trx, projectId, available, now);
  await shrinkLeaderboards(trx, projectId, [...available, ...points]);
  return parts;
}

/** Each key's new debt, on the open check of the key that takes movements (created when none is open), netted against what it holds. */
async function carryDebt(trx: Transaction<ClaimDatabase>, projectId: string, parts: MovementReversalRecord[], now: Date): Promise<void> {
  const byKey = new Map<string, { part: MovementReversalRecord; debt: bigint }>();
  for (const part of parts) {
    if (part.toDebt === 0n) continue;
    const key = [part.beneficiary.identifier, part.beneficiary.identifierType, part.currencyId, REASON_OF_KIND[part.kind]].join('|');
    const entry = byKey.get(key) ?? { part, debt: 0n };
    entry.debt += part.toDebt;
    byKey.set(key, entry);
  }
  if (byKey.size === 0) return;
  const debts = [...byKey.values()];
  await sql`
    INSERT INTO claim_checks AS cc (project_id, identifier_type, identifier, currency_id, reason, status, amount, movements_count, debt, created_at, updated_at)
    SELECT ${projectId}, identifier_type, identifier, currency_id, reason, 'open', 0, 0, debt, ${now}, ${now}
    FROM unnest(${debts.map(({ part }) => part.beneficiary.identifierType)}::text[], ${debts.map(({ part }) => part.beneficiary.identifier)}::text[],
                ${debts.map(({ part }) => part.currencyId)}::uuid[], ${debts.map(({ part }) => REASON_OF_KIND[part.kind])}::text[],
                ${debts.map(({ debt }) => debt)}::numeric[]) AS d(identifier_type, identifier, currency_id, reason, debt)
    ORDER BY identifier, identifier_type, currency_id, reason
    ON CONFLICT (project_id, identifier, identifier_type, currency_id, reason) WHERE status = 'open' AND full_at IS NULL
    DO UPDATE SET amount = cc.amount - least(cc.amount, excluded.debt), debt = cc.debt + excluded.debt - least(cc.amount, excluded.debt),
                  updated_at = excluded.updated_at`.execute(trx);
}

/** The payouts leaderboards (counted kinds, all-time and per day) lose what available amounts gave back; pending amounts were never on them. */
async function shrinkLeaderboards(trx: Transaction<ClaimDatabase>, projectId: string, parts: MovementReversalRecord[]): Promise<void> {
  const totals = new Map<string, { part: MovementReversalRecord; amount: bigint }>();
  for (const part of parts) {
    if (part.kind !== 'affiliate_payout' && part.kind !== 'end_user_payout') continue;
    const key = [part.currencyId, part.kind, part.beneficiary.identifierType, part.beneficiary.identifier].join('|');
    const entry = totals.get(key) ?? { part, amount: 0n };
    entry.amount += part.amount;
    totals.set(key, entry);
  }
  if (totals.size === 0) return;
  const rows = [...totals.values()];
  await sql`
    UPDATE leaderboard_totals AS lt SET total_amount = lt.total_amount - u.amount
    FROM (
      SELECT * FROM unnest(${rows.map(({ part }) => part.currencyId)}::uuid[],
                           ${rows.map(({ part }) => (part.kind === 'affiliate_payout' ? 'affiliate' : 'end_user'))}::text[],
                           ${rows.map(({ part }) => part.beneficiary.identifierType)}::text[], ${rows.map(({ part }) => part.beneficiary.identifier)}::text[],
                           ${rows.map(({ amount }) => amount)}::numeric[]) AS r(currency_id, user_type, identifier_type, identifier, amount)
      ORDER BY currency_id, user_type, identifier_type, identifier
    ) AS u
    WHERE lt.project_id = ${projectId} AND lt.currency_id = u.currency_id AND lt.user_type = u.user_type
      AND lt.identifier_type = u.identifier_type AND lt.identifier = u.identifier`.execute(trx);
  // The per-day boards lose it on the day each movement counts on: the day it was written (docs/claims.md#leaderboards-over-a-date-range).
  const counted = parts.filter((part) => part.kind === 'affiliate_payout' || part.kind === 'end_user_payout');
  await sql`
    UPDATE leaderboard_days AS ld SET total_amount = ld.total_amount - u.amount
    FROM (
      SELECT m.currency_id, CASE m.kind WHEN 'affiliate_payout' THEN 'affiliate' ELSE 'end_user' END AS user_type,
             (m.created_at AT TIME ZONE 'UTC')::date AS day, m.identifier_type, m.identifier, sum(r.amount) AS amount
      FROM unnest(${counted.map((part) => part.movementId)}::bigint[], ${counted.map((part) => part.amount)}::numeric[]) AS r(movement_id, amount)
      JOIN movements m ON m.id = r.movement_id
      GROUP BY 1, 2, 3, 4, 5
      ORDER BY 1, 2, 3, 4, 5
    ) AS u
    WHERE ld.project_id = ${projectId} AND ld.currency_id = u.currency_id AND ld.user_type = u.user_type AND ld.day = u.day
      AND ld.identifier_type = u.identifier_type AND ld.identifier = u.identifier`.execute(trx);
}

/** The movement parts of these reversals, with their movements' kind, beneficiary and currency, in movement order. */
async function movementParts(
  db: Kysely<ClaimDatabase> | Transaction<ClaimDatabase>,
  projectId: string,
  reversalIds: string[],
): Promise<Map<string, MovementReversalRecord[]>> {
  const rows = await db
    .selectFrom('movement_reversals as r')
    .innerJoin('movements as m', 'm.id', 'r.movement_id')
    .select([
      'r.reversal_id',
      sql<string>`r.movement_id::text`.as('movement_id'),
      'm.kind',
      'm.rebate',
      'm.level',
      'm.identifier',
      'm.identifier_type',
      'm.currency_id',
      'r.amount',
      'r.was',
      'r.claim_check_id',
      'r.from_check',
      'r.to_debt',
      'r.from_points',
    ])
    .where('r.project_id', '=', projectId)
    .where('r.reversal_id', 'in', reversalIds)
    .orderBy('r.movement_id')
    .execute();
  const parts = new Map<string, MovementReversalRecord[]>();
  for (const row of rows) {
    const list = parts.get(row.reversal_id) ?? [];
    list.push({
      movementId: row.movement_id,
      kind: row.kind,
      rebate: row.rebate,
      level: row.level,
      beneficiary: { identifier: row.identifier, identifierType: row.identifier_type },
      currencyId: row.currency_id,
      amount: BigInt(row.amount),
      was: row.was,
      claimCheckId: row.claim_check_id,
      fromCheck: BigInt(row.from_check),
      toDebt: BigInt(row.to_debt),
      fromPoints: BigInt(row.from_points),
    });
    parts.set(row.reversal_id, list);
  }
  return parts;
}

function toRecord(
  head: {
    reversal_id: string;
    conversion_id: string;
    share_bps: number;
    reason: string;
    volume_usd: string | null;
    revenue_usd: string | null;
    reversed_by: string;
    created_at: Date;
  },
  movements: MovementReversalRecord[],
): ReversalRecord {
  return {
    reversalId: head.reversal_id,
    conversionId: head.conversion_id,
    shareBps: head.share_bps,
    reason: head.reason,
    volumeUsd: head.volume_usd,
    revenueUsd: head.revenue_usd,
    reversedBy: head.reversed_by,
    createdAt: head.created_at,
    movements,
  };
}

const userOf = (identifier: string, identifierType: IdentifierType) => ({ identifier, identifier_type: identifierType });

type FrozenUpline = Array<{ level: number; affiliate_id: string; identifier_type: IdentifierType; identifier: string }>;

function reversedEvent(projectId: string, conversion: LockedConversion, upline: FrozenUpline, reversal: ReversalRecord) {
  return {
    type: 'claim.conversion.reversed' as const,
    projectId,
    payload: {
      conversion_id: conversion.id,
      reversal_id: reversal.reversalId,
      name: conversion.name,
      share_bps: reversal.shareBps,
      reason: reversal.reason,
      reversed_at: reversal.createdAt.toISOString(),
      occurred_at: conversion.occurred_at.toISOString(),
      user: userOf(conversion.identifier, conversion.identifier_type),
      affiliate:
        conversion.affiliate_id && conversion.affiliate_identifier && conversion.affiliate_identifier_type
          ? { id: conversion.affiliate_id, user: userOf(conversion.affiliate_identifier, conversion.affiliate_identifier_type) }
          : null,
      master:
        conversion.master_id && conversion.master_identifier && conversion.master_identifier_type
          ? { id: conversion.master_id, user: userOf(conversion.master_identifier, conversion.master_identifier_type) }
          : null,
      upline: upline.map((level) => ({ level: level.level, id: level.affiliate_id, user: userOf(level.identifier, level.identifier_type) })),
      volume_usd: reversal.volumeUsd,
      revenue_usd: reversal.revenueUsd,
      currency_id: conversion.currency_id,
      reversals: reversal.movements.map((part) => ({
        kind: part.kind,
        user: userOf(part.beneficiary.identifier, part.beneficiary.identifierType),
        amount: part.amount.toString(),
        was: part.was,
        from_check: part.fromCheck.toString(),
        to_debt: part.toDebt.toString(),
        ...(part.fromPoints > 0n ? { from_points: part.fromPoints.toString() } : {}),
        ...(part.rebate ? { rebate: true as const } : {}),
        ...(part.kind === 'affiliate_payout' ? { level: part.level } : {}),
      })),
    },
  };
}
