import { sql, type Transaction } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import type { AudienceDatabase } from '../database';

/** One paid conversion, as the metrics need it (from claim.conversion.processed). */
export interface ConversionInput {
  /** Whose conversion it is. */
  user: UserIdentifier;
  name: string;
  /** The UTC day it happened, YYYY-MM-DD. */
  day: string;
  /** USD decimal strings ('0' when the conversion had none). */
  volumeUsd: string;
  revenueUsd: string;
  /** The affiliate it was attributed to when it was paid (frozen), by its user: its referred volume grows. */
  referrer: UserIdentifier | null;
  /** What each beneficiary was paid, in the conversion's currency (integer base units). */
  earnings: ReadonlyArray<{ user: UserIdentifier; currencyId: string; amount: bigint }>;
}

/** One referral (agency.referral.created): the referrer has one more referred user, on the day of the referral. */
export interface ReferralInput {
  referrer: UserIdentifier;
  day: string;
}

type Trx = Transaction<AudienceDatabase>;

/**
 * The audience's projection of what conditions read (migration 0004), written in the transaction
 * that records the events in processed_events, so each event counts once. Every statement adds
 * the batch's contributions grouped by key (a key appears once per statement, as ON CONFLICT DO
 * UPDATE requires) and sorted by key, and the tables are always written in the same order
 * (conversion days, referral days, earning days, all-time metrics): concurrent deliveries lock
 * shared rows in one order and wait for each other instead of deadlocking. Sums are NUMERIC in
 * PostgreSQL; no figure passes through a double.
 */
export async function recordConversionInputs(trx: Trx, projectId: string, conversions: readonly ConversionInput[], now: Date): Promise<void> {
  if (conversions.length === 0) return;
  const own = conversions;
  await sql`
    INSERT INTO user_conversion_days AS d (project_id, identifier_type, identifier, name, day, conversions, volume_usd, revenue_usd)
    SELECT ${projectId}::uuid, u.identifier_type, u.identifier, u.name, u.day::date, count(*), sum(u.volume), sum(u.revenue)
    FROM unnest(
      ${own.map((c) => c.user.identifierType)}::text[], ${own.map((c) => c.user.identifier)}::text[], ${own.map((c) => c.name)}::text[],
      ${own.map((c) => c.day)}::text[], ${own.map((c) => c.volumeUsd)}::numeric[], ${own.map((c) => c.revenueUsd)}::numeric[]
    ) AS u(identifier_type, identifier, name, day, volume, revenue)
    GROUP BY u.identifier_type, u.identifier, u.name, u.day
    ORDER BY u.identifier_type, u.identifier, u.name, u.day
    ON CONFLICT (project_id, identifier_type, identifier, name, day) DO UPDATE
      SET conversions = d.conversions + excluded.conversions, volume_usd = d.volume_usd + excluded.volume_usd, revenue_usd = d.revenue_usd + excluded.revenue_usd`.execute(
    trx,
  );

  const referred = conversions.filter((c): c is ConversionInput & { referrer: UserIdentifier } => c.referrer !== null);
  await addReferralDays(
    trx,
    projectId,
    referred.map((c) => ({ user: c.referrer, day: c.day, users: 0, volume: c.volumeUsd })),
  );

  const earnings = conversions.flatMap((c) => c.earnings.map((earning) => ({ ...earning, day: c.day })));
  if (earnings.length > 0) {
    await sql`
      INSERT INTO user_earning_days AS e (project_id, identifier_type, identifier, currency_id, day, amount)
      SELECT ${projectId}::uuid, u.identifier_type, u.identifier, u.currency_id, u.day::date, sum(u.amount)
      FROM unnest(
        ${earnings.map((e) => e.user.identifierType)}::text[], ${earnings.map((e) => e.user.identifier)}::text[],
        ${earnings.map((e) => e.currencyId)}::uuid[], ${earnings.map((e) => e.day)}::text[], ${earnings.map((e) => e.amount.toString())}::numeric[]
      ) AS u(identifier_type, identifier, currency_id, day, amount)
      GROUP BY u.identifier_type, u.identifier, u.currency_id, u.day
      ORDER BY u.identifier_type, u.identifier, u.currency_id, u.day
      ON CONFLICT (project_id, identifier_type, identifier, currency_id, day) DO UPDATE SET amount = e.amount + excluded.amount`.execute(trx);
  }

  await addAllTime(trx, projectId, now, [
    ...own.map((c) => ({ user: c.user, volume: c.volumeUsd, revenue: c.revenueUsd, conversions: 1, referredUsers: 0, referredVolume: '0' })),
    ...referred.map((c) => ({ user: c.referrer, volume: '0', revenue: '0', conversions: 0, referredUsers: 0, referredVolume: c.volumeUsd })),
  ]);
}

export async function recordReferralInputs(trx: Trx, projectId: string, referrals: readonly ReferralInput[], now: Date): Promise<void> {
  if (referrals.length === 0) return;
  await addReferralDays(
    trx,
    projectId,
    referrals.map((r) => ({ user: r.referrer, day: r.day, users: 1, volume: '0' })),
  );
  await addAllTime(
    trx,
    projectId,
    now,
    referrals.map((r) => ({ user: r.referrer, volume: '0', revenue: '0', conversions: 0, referredUsers: 1, referredVolume: '0' })),
  );
}

async function addReferralDays(
  trx: Trx,
  projectId: string,
  rows: ReadonlyArray<{ user: UserIdentifier; day: string; users: number; volume: string }>,
): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    INSERT INTO user_referral_days AS r (project_id, identifier_type, identifier, day, referred_users, referred_volume_usd)
    SELECT ${projectId}::uuid, u.identifier_type, u.identifier, u.day::date, sum(u.users), sum(u.volume)
    FROM unnest(
      ${rows.map((row) => row.user.identifierType)}::text[], ${rows.map((row) => row.user.identifier)}::text[], ${rows.map((row) => row.day)}::text[],
      ${rows.map((row) => row.users)}::int8[], ${rows.map((row) => row.volume)}::numeric[]
    ) AS u(identifier_type, identifier, day, users, volume)
    GROUP BY u.identifier_type, u.identifier, u.day
    ORDER BY u.identifier_type, u.identifier, u.day
    ON CONFLICT (project_id, identifier_type, identifier, day) DO UPDATE
      SET referred_users = r.referred_users + excluded.referred_users, referred_volume_usd = r.referred_volume_usd + excluded.referred_volume_usd`.execute(
    trx,
  );
}

interface AllTimeDelta {
  user: UserIdentifier;
  volume: string;
  revenue: string;
  conversions: number;
  referredUsers: number;
  referredVolume: string;
}

async function addAllTime(trx: Trx, projectId: string, now: Date, rows: readonly AllTimeDelta[]): Promise<void> {
  await sql`
    INSERT INTO user_metrics AS m (project_id, identifier_type, identifier, volume_usd, revenue_usd, conversions, referred_users, referred_volume_usd, updated_at)
    SELECT ${projectId}::uuid, u.identifier_type, u.identifier, sum(u.volume), sum(u.revenue), sum(u.conversions), sum(u.referred_users), sum(u.referred_volume), ${now}
    FROM unnest(
      ${rows.map((row) => row.user.identifierType)}::text[], ${rows.map((row) => row.user.identifier)}::text[],
      ${rows.map((row) => row.volume)}::numeric[], ${rows.map((row) => row.revenue)}::numeric[], ${rows.map((row) => row.conversions)}::int8[],
      ${rows.map((row) => row.referredUsers)}::int8[], ${rows.map((row) => row.referredVolume)}::numeric[]
    ) AS u(identifier_type, identifier, volume, revenue, conversions, referred_users, referred_volume)
    GROUP BY u.identifier_type, u.identifier
    ORDER BY u.identifier_type, u.identifier
    ON CONFLICT (project_id, identifier_type, identifier) DO UPDATE
      SET volume_usd = m.volume_usd + excluded.volume_usd, revenue_usd = m.revenue_usd + excluded.revenue_usd,
          conversions = m.conversions + excluded.conversions, referred_users = m.referred_users + excluded.referred_users,
          referred_volume_usd = m.referred_volume_usd + excluded.referred_volume_usd, updated_at = excluded.updated_at`.execute(trx);
}

/**
 * One reversal of a paid conversion (claim.conversion.reversed): its share of what the conversion added, said as the
 * conversion says it (its day, the day rows it was added to; the reversed share of its volume and revenue; what came
 * back from each beneficiary).
 */
export interface ReversalInput extends ConversionInput {
  conversionId: string;
  shareBps: number;
}

/** A user's key in the order the conversions' statements lock rows (identifier_type, identifier). */
const byUserKey = (a: UserIdentifier, b: UserIdentifier) =>
  a.identifierType.localeCompare(b.identifierType) || (a.identifier < b.identifier ? -1 : a.identifier > b.identifier ? 1 : 0);

/**
 * One reversal out of the condition inputs: the share of the volume, revenue and payouts its
 * conversion added, taken from the same rows (the conversion's day and name, its referrer's day, each
 * beneficiary's earning day, the all-time figures), and, for the reversal that completes the
 * conversion's 10000 bps, the conversion out of the counts. Updates of rows the conversion created:
 * a row missing (the reversal came before its conversion) throws, so the event is retried after it,
 * and every sum refuses to go below zero (migration 0012): never a silent negative figure. Call it in
 * the transaction that records the event in processed_events (once per reversal); tables in the
 * order of recordConversionInputs, rows in key order.
 */
export async function recordReversalInputs(trx: Trx, projectId: string, reversal: ReversalInput, now: Date): Promise<void> {
  const reversed = await trx
    .insertInto('reversed_conversions')
    .values({ project_id: projectId, conversion_id: reversal.conversionId, reversed_bps: reversal.shareBps })
    .onConflict((conflict) =>
      conflict.columns(['project_id', 'conversion_id']).doUpdateSet({ reversed_bps: sql`reversed_conversions.reversed_bps + excluded.reversed_bps` }),
    )
    .returning('reversed_bps')
    .executeTakeFirstOrThrow();
  const counted = reversed.reversed_bps === 10_000 ? 1 : 0;
  const { user, referrer, day } = reversal;
  const volume = reversal.volumeUsd;
  const revenue = reversal.revenueUsd;
  const missing = (what: string) => {
    throw new Error(
      `conversion ${reversal.conversionId} has not added to ${what} yet: its reversal waits for its claim.conversion.processed (retried)`,
    );
  };
  const userKey = (who: UserIdentifier) =>
    sql`project_id = ${projectId} AND identifier_type = ${who.identifierType} AND identifier = ${who.identifier}`;

  const conversionDay = await sql`
    UPDATE user_conversion_days SET conversions = conversions - ${counted}, volume_usd = volume_usd - ${volume}::numeric,
      revenue_usd = revenue_usd - ${revenue}::numeric
    WHERE ${userKey(user)} AND name = ${reversal.name} AND day = ${day}::date`.execute(trx);
  if (conversionDay.numAffectedRows !== 1n) missing("its user's conversion day");
  if (referrer) {
    const referralDay = await sql`
      UPDATE user_referral_days SET referred_volume_usd = referred_volume_usd - ${volume}::numeric
      WHERE ${userKey(referrer)} AND day = ${day}::date`.execute(trx);
    if (referralDay.numAffectedRows !== 1n) missing("its referrer's referral day");
  }
  const earnings = new Map<string, { user: UserIdentifier; currencyId: string; amount: bigint }>();
  for (const earning of reversal.earnings) {
    const key = `${earning.user.identifierType}|${earning.user.identifier}|${earning.currencyId}`;
    const entry = earnings.get(key) ?? { ...earning, amount: 0n };
    entry.amount += earning.amount;
    earnings.set(key, entry);
  }
  for (const earning of [...earnings.values()].sort((a, b) => byUserKey(a.user, b.user) || a.currencyId.localeCompare(b.currencyId))) {
    const earningDay = await sql`
      UPDATE user_earning_days SET amount = amount - ${earning.amount.toString()}::numeric
      WHERE ${userKey(earning.user)} AND currency_id = ${earning.currencyId} AND day = ${day}::date`.execute(trx);
    if (earningDay.numAffectedRows !== 1n) missing("its beneficiaries' earning days");
  }
  const allTime = [
    { who: user, volume, revenue, conversions: counted, referredVolume: '0' },
    ...(referrer ? [{ who: referrer, volume: '0', revenue: '0', conversions: 0, referredVolume: volume }] : []),
  ].sort((a, b) => byUserKey(a.who, b.who));
  for (const row of allTime) {
    const metrics = await sql`
      UPDATE user_metrics SET volume_usd = volume_usd - ${row.volume}::numeric, revenue_usd = revenue_usd - ${row.revenue}::numeric,
        conversions = conversions - ${row.conversions}, referred_volume_usd = referred_volume_usd - ${row.referredVolume}::numeric, updated_at = ${now}
      WHERE ${userKey(row.who)}`.execute(trx);
    if (metrics.numAffectedRows !== 1n) missing("its users' all-time figures");
  }
}
