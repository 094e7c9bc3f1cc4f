import { type Kysely, sql, type Transaction } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import type { AgencyDatabase } from '../database';

/** One paid (or no_terms) conversion as the claim service froze it: what the projection is made of. */
export interface ConversionFact {
  conversionId: string;
  name: string;
  status: 'processed' | 'no_terms';
  occurredAt: Date;
  /** The converting user. */
  user: UserIdentifier;
  /** Null: attributed to nobody (the fact is kept; no affiliate's figures change). */
  affiliateId: string | null;
  /** The master the affiliate was bound to at that moment. */
  masterId: string | null;
  spreadBps: number | null;
  tierId: string | null;
  /** Non-negative USD decimal strings. */
  volumeUsd: string | null;
  revenueUsd: string | null;
  currencyId: string | null;
  /** Base units paid to the affiliate (affiliate_payout) and to its master (agency_payout). */
  affiliatePayout: bigint;
  agencyPayout: bigint;
}

export interface MetricCurrency {
  id: string;
  chainId: string;
  address: string;
  name: string;
  decimals: number;
}

export interface EarningRecord {
  currency: MetricCurrency | null;
  /** The currency's id, also when its details are not known yet. */
  currencyId: string;
  amount: bigint;
}

/** An affiliate's figures: what it brought as an affiliate, and as a master through its sub-affiliates. */
export interface AffiliateMetricsRecord {
  volumeUsd: string;
  revenueUsd: string;
  conversions: bigint;
  /** Every user it referred, converted or not (specification §2.9: unique users brought in). */
  endUsers: bigint;
  /** Of those, the users with at least one conversion attributed to it. */
  convertingUsers: bigint;
  referredVolumeUsd: string;
  /** Its affiliate_payout movements per currency. */
  earnings: EarningRecord[];
  /** A master's agency_payout movements per currency. */
  agencyEarnings: EarningRecord[];
}

/** The figures of an affiliate with no conversion yet. */
export const EMPTY_METRICS: AffiliateMetricsRecord = {
  volumeUsd: '0',
  revenueUsd: '0',
  conversions: 0n,
  endUsers: 0n,
  convertingUsers: 0n,
  referredVolumeUsd: '0',
  earnings: [],
  agencyEarnings: [],
};

type Db = Kysely<AgencyDatabase> | Transaction<AgencyDatabase>;

/**
 * The projection as the rebuild uses it (domain/affiliate-metrics.service.ts). The consumer and other
 * readers use the functions below directly, in their own transactions.
 */
export class AffiliateMetricsRepository {
  constructor(private readonly db: Kysely<AgencyDatabase>) {}

  rememberCurrencies(projectId: string, currencies: readonly MetricCurrency[]): Promise<void> {
    return rememberCurrencies(this.db, projectId, currencies);
  }

  /** Facts not recorded yet, inserted without touching any aggregate (recompute does that); how many were new. */
  async insertFacts(projectId: string, facts: readonly ConversionFact[], now: Date): Promise<number> {
    return (await insertFacts(this.db, projectId, facts, now)).length;
  }

  /** Which of these ids are affiliates of the project. */
  async knownAffiliates(projectId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('affiliates')
      .select('id')
      .where('project_id', '=', projectId)
      .where('id', 'in', [...ids])
      .execute();
    return new Set(rows.map((row) => row.id));
  }

  /** Every aggregate of the project from its facts, in one transaction under the project's exclusive lock. */
  async recompute(projectId: string, now: Date): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await lockProjectMetrics(trx, projectId, 'exclusive');
      await recomputeProjectMetrics(trx, projectId, now);
    });
  }

  factCounts(projectId: string): Promise<{ conversions: number; attributed: number }> {
    return projectFactCounts(this.db, projectId);
  }
}

/**
 * The projection's lock, per project: every event applies under its shared form (events never
 * wait for each other), a rebuild's recomputation under its exclusive form, so no event is applied
 * half inside and half outside a recomputation.
 */
export async function lockProjectMetrics(trx: Transaction<AgencyDatabase>, projectId: string, mode: 'shared' | 'exclusive'): Promise<void> {
  const key = sql`hashtextextended(${`affiliate-metrics:${projectId}`}, 0)`;
  await (mode === 'shared' ? sql`SELECT pg_advisory_xact_lock_shared(${key})` : sql`SELECT pg_advisory_xact_lock(${key})`).execute(trx);
}

/** The metrics row of a new affiliate, in the transaction that creates it (the list's sorts read it). */
export async function createAffiliateMetrics(trx: Transaction<AgencyDatabase>, projectId: string, affiliateId: string, now: Date): Promise<void> {
  await trx
    .insertInto('affiliate_metrics')
    .values({ affiliate_id: affiliateId, project_id: projectId, updated_at: now } as never)
    .onConflict((conflict) => conflict.column('affiliate_id').doNothing())
    .execute();
}

/**
 * A user's first referral by this affiliate, in the transaction that wrote it (the referrals' primary
 * key makes it once per user, so no other dedup is needed): one more end user. Call it under
 * lockProjectMetrics(shared), like an event, so a rebuild's recomputation (which counts the
 * referrals) never overwrites it with a count taken before it committed.
 */
export async function countReferredUser(trx: Transaction<AgencyDatabase>, projectId: string, affiliateId: string, now: Date): Promise<void> {
  await addToAffiliateMetrics(trx, projectId, affiliateId, now, { end_users: sql`m.end_users + 1` });
}

/** Currencies named by events (ON CONFLICT DO NOTHING: they never change). */
export async function rememberCurrencies(db: Db, projectId: string, currencies: readonly MetricCurrency[]): Promise<void> {
  const distinct = [...new Map(currencies.map((currency) => [currency.id, currency])).values()];
  if (distinct.length === 0) return;
  await db
    .insertInto('metric_currencies')
    .values(distinct.map((c) => ({ id: c.id, project_id: projectId, chain_id: c.chainId, address: c.address, name: c.name, decimals: c.decimals })))
    .onConflict((conflict) => conflict.column('id').doNothing())
    .execute();
}

/** Inserts facts not recorded yet; answers those it inserted (a fact already there is left as it is). */
export async function insertFacts(db: Db, projectId: string, facts: readonly ConversionFact[], now: Date): Promise<ConversionFact[]> {
  if (facts.length === 0) return [];
  const { rows: inserted } = await sql<{ conversion_id: string }>`${insertFactsStatement(projectId, facts, now)} RETURNING conversion_id`.execute(db);
  const ids = new Set(inserted.map((row) => row.conversion_id));
  return facts.filter((fact) => ids.has(fact.conversionId));
}

/**
 * The INSERT of the facts not recorded yet (without its RETURNING). One array parameter per column,
 * not 17 parameters per fact: a relay round brings 1,000 facts, and a VALUES list of 17,000
 * parameters costs PostgreSQL more to plan, and pg more to bind, than the insert.
 */
function insertFactsStatement(projectId: string, facts: readonly ConversionFact[], now: Date) {
  const column = <T>(pick: (fact: ConversionFact) => T) => facts.map(pick);
  // Raw: INSERT ... SELECT over unnest'ed arrays, in the order given.
  return sql`
    INSERT INTO conversion_facts (project_id, conversion_id, name, status, occurred_at, identifier_type, identifier, affiliate_id, master_id,
                                  spread_bps, tier_id, volume_usd, revenue_usd, currency_id, affiliate_payout, agency_payout, recorded_at)
    SELECT ${projectId}::uuid, f.conversion_id, f.name, f.status, f.occurred_at, f.identifier_type, f.identifier, f.affiliate_id, f.master_id,
           f.spread_bps, f.tier_id, f.volume_usd, f.revenue_usd, f.currency_id, f.affiliate_payout, f.agency_payout, ${now}::timestamptz
    FROM unnest(
      ${column((f) => f.conversionId)}::text[], ${column((f) => f.name)}::text[], ${column((f) => f.status)}::text[],
      ${column((f) => f.occurredAt)}::timestamptz[], ${column((f) => f.user.identifierType)}::text[], ${column((f) => f.user.identifier)}::text[],
      ${column((f) => f.affiliateId)}::uuid[], ${column((f) => f.masterId)}::uuid[], ${column((f) => f.spreadBps)}::integer[],
      ${column((f) => f.tierId)}::uuid[], ${column((f) => f.volumeUsd)}::numeric[], ${column((f) => f.revenueUsd)}::numeric[],
      ${column((f) => f.currencyId)}::uuid[], ${column((f) => f.affiliatePayout)}::numeric[], ${column((f) => f.agencyPayout)}::numeric[]
    ) WITH ORDINALITY AS f(conversion_id, name, status, occurred_at, identifier_type, identifier, affiliate_id, master_id,
                           spread_bps, tier_id, volume_usd, revenue_usd, currency_id, affiliate_payout, agency_payout, n)
    ORDER BY f.n
    ON CONFLICT (project_id, conversion_id) DO NOTHING`;
}

/**
 * One conversion into the projection: its fact, and, only when the fact was new, every aggregate
 * it changes. So a replay, even outside processed_events (or after a rebuild already brought the
 * fact), changes nothing. Call it under lockProjectMetrics(shared).
 */
export async function recordConversion(trx: Transaction<AgencyDatabase>, projectId: string, fact: ConversionFact, now: Date): Promise<boolean> {
  const [inserted] = await insertFacts(trx, projectId, [fact], now);
  if (!inserted) return false;
  if (fact.affiliateId !== null) await addToAggregates(trx, projectId, fact, fact.affiliateId, now);
  return true;
}

async function addToAggregates(
  trx: Transaction<AgencyDatabase>,
  projectId: string,
  fact: ConversionFact,
  affiliateId: string,
  now: Date,
): Promise<void> {
  const volume = fact.volumeUsd ?? '0';
  const revenue = fact.revenueUsd ?? '0';
  const referred = await trx
    .insertInto('referred_user_metrics')
    .values({
      affiliate_id: affiliateId,
      identifier_type: fact.user.identifierType,
      identifier: fact.user.identifier,
      project_id: projectId,
      volume_usd: volume,
      revenue_usd: revenue,
      conversions: 1,
      first_conversion_at: fact.occurredAt,
      last_conversion_at: fact.occurredAt,
    })
    .onConflict((conflict) =>
      conflict.columns(['affiliate_id', 'identifier_type', 'identifier']).doUpdateSet((eb) => ({
        volume_usd: sql`referred_user_metrics.volume_usd + excluded.volume_usd`,
        revenue_usd: sql`referred_user_metrics.revenue_usd + excluded.revenue_usd`,
        conversions: eb('referred_user_metrics.conversions', '+', 1n),
        first_conversion_at: sql`least(referred_user_metrics.first_conversion_at, excluded.first_conversion_at)`,
        last_conversion_at: sql`greatest(referred_user_metrics.last_conversion_at, excluded.last_conversion_at)`,
      })),
    )
    // A row this statement inserted has no locking transaction (xmax = 0): the user's first conversion.
    .returning(sql<boolean>`(xmax = 0)`.as('first'))
    .executeTakeFirstOrThrow();
  await addToAffiliateMetrics(trx, projectId, affiliateId, now, {
    volume_usd: sql`m.volume_usd + ${volume}::numeric`,
    revenue_usd: sql`m.revenue_usd + ${revenue}::numeric`,
    conversions: sql`m.conversions + 1`,
    converting_users: referred.first ? sql`m.converting_users + 1` : sql`m.converting_users`,
  });
  await trx
    .insertInto('affiliate_conversion_counts')
    .values({ affiliate_id: affiliateId, name: fact.name, project_id: projectId, conversions: 1 })
    .onConflict((conflict) =>
      conflict.columns(['affiliate_id', 'name']).doUpdateSet((eb) => ({ conversions: eb('affiliate_conversion_counts.conversions', '+', 1n) })),
    )
    .execute();
  if (fact.currencyId !== null && fact.affiliatePayout > 0n)
    await addEarning(trx, projectId, affiliateId, 'affiliate', fact.currencyId, fact.affiliatePayout);
  if (fact.masterId === null) return;
  await trx
    .insertInto('sub_affiliate_metrics')
    .values({ master_id: fact.masterId, affiliate_id: affiliateId, project_id: projectId, volume_usd: volume, revenue_usd: revenue, conversions: 1 })
    .onConflict((conflict) =>
      conflict.columns(['master_id', 'affiliate_id']).doUpdateSet((eb) => ({
        volume_usd: sql`sub_affiliate_metrics.volume_usd + excluded.volume_usd`,
        revenue_usd: sql`sub_affiliate_metrics.revenue_usd + excluded.revenue_usd`,
        conversions: eb('sub_affiliate_metrics.conversions', '+', 1n),
      })),
    )
    .execute();
  await addToAffiliateMetrics(trx, projectId, fact.masterId, now, { referred_volume_usd: sql`m.referred_volume_usd + ${volume}::numeric` });
  if (fact.currencyId !== null && fact.agencyPayout > 0n)
    await addEarning(trx, projectId, fact.masterId, 'agency', fact.currencyId, fact.agencyPayout);
}

/** Adds to an affiliate's row (creating it if an older affiliate has none yet). */
async function addToAffiliateMetrics(
  trx: Transaction<AgencyDatabase>,
  projectId: string,
  affiliateId: string,
  now: Date,
  changes: Record<string, ReturnType<typeof sql>>,
): Promise<void> {
  await createAffiliateMetrics(trx, projectId, affiliateId, now);
  await trx
    .updateTable('affiliate_metrics as m')
    .set({ ...changes, updated_at: now } as never)
    .where('m.affiliate_id', '=', affiliateId)
    .execute();
}

async function addEarning(
  trx: Transaction<AgencyDatabase>,
  projectId: string,
  affiliateId: string,
  kind: 'affiliate' | 'agency',
  currencyId: string,
  amount: bigint,
) {
  await trx
    .insertInto('affiliate_earnings')
    .values({ affiliate_id: affiliateId, kind, currency_id: currencyId, project_id: projectId, amount })
    .onConflict((conflict) =>
      conflict.columns(['affiliate_id', 'kind', 'currency_id']).doUpdateSet({ amount: sql`affiliate_earnings.amount + excluded.amount` }),
    )
    .execute();
}

/**
 * Every aggregate of the project recomputed from its facts, in the caller's transaction (under
 * lockProjectMetrics(exclusive)): what the events would have built, whatever was lost or doubled.
 */
export async function recomputeProjectMetrics(trx: Transaction<AgencyDatabase>, projectId: string, now: Date): Promise<void> {
  for (const table of ['referred_user_metrics', 'affiliate_conversion_counts', 'affiliate_earnings', 'sub_affiliate_metrics'] as const) {
    await trx.deleteFrom(table).where('project_id', '=', projectId).execute();
  }
  // Raw: INSERT ... SELECT with GROUP BY over the facts (set-based, one statement per table).
  await sql`
    INSERT INTO referred_user_metrics (affiliate_id, identifier_type, identifier, project_id, volume_usd, revenue_usd, conversions, first_conversion_at, last_conversion_at)
    SELECT affiliate_id, identifier_type, identifier, project_id, sum(coalesce(volume_usd, 0)), sum(coalesce(revenue_usd, 0)), count(*), min(occurred_at), max(occurred_at)
    FROM conversion_facts WHERE project_id = ${projectId} AND affiliate_id IS NOT NULL
    GROUP BY project_id, affiliate_id, identifier_type, identifier`.execute(trx);
  await sql`
    INSERT INTO affiliate_conversion_counts (affiliate_id, name, project_id, conversions)
    SELECT affiliate_id, name, project_id, count(*)
    FROM conversion_facts WHERE project_id = ${projectId} AND affiliate_id IS NOT NULL
    GROUP BY project_id, affiliate_id, name`.execute(trx);
  await sql`
    INSERT INTO affiliate_earnings (affiliate_id, kind, currency_id, project_id, amount)
    SELECT affiliate_id, 'affiliate', currency_id, project_id, sum(affiliate_payout)
    FROM conversion_facts WHERE project_id = ${projectId} AND affiliate_id IS NOT NULL AND currency_id IS NOT NULL AND affiliate_payout > 0
    GROUP BY project_id, affiliate_id, currency_id
    UNION ALL
    SELECT master_id, 'agency', currency_id, project_id, sum(agency_payout)
    FROM conversion_facts WHERE project_id = ${projectId} AND master_id IS NOT NULL AND currency_id IS NOT NULL AND agency_payout > 0
    GROUP BY project_id, master_id, currency_id`.execute(trx);
  await sql`
    INSERT INTO sub_affiliate_metrics (master_id, affiliate_id, project_id, volume_usd, revenue_usd, conversions)
    SELECT master_id, affiliate_id, project_id, sum(coalesce(volume_usd, 0)), sum(coalesce(revenue_usd, 0)), count(*)
    FROM conversion_facts WHERE project_id = ${projectId} AND master_id IS NOT NULL
    GROUP BY project_id, master_id, affiliate_id`.execute(trx);
  await sql`
    INSERT INTO affiliate_metrics (affiliate_id, project_id, updated_at)
    SELECT id, project_id, ${now} FROM affiliates WHERE project_id = ${projectId}
    ON CONFLICT (affiliate_id) DO NOTHING`.execute(trx);
  await sql`
    UPDATE affiliate_metrics AS m SET
      volume_usd = coalesce(own.volume_usd, 0), revenue_usd = coalesce(own.revenue_usd, 0),
      conversions = coalesce(own.conversions, 0), converting_users = coalesce(own.converting_users, 0),
      end_users = coalesce(referred.end_users, 0), referred_volume_usd = coalesce(sub.volume_usd, 0), updated_at = ${now}
    FROM affiliate_metrics AS base
    LEFT JOIN (
      SELECT affiliate_id, sum(volume_usd) AS volume_usd, sum(revenue_usd) AS revenue_usd, sum(conversions) AS conversions, count(*) AS converting_users
      FROM referred_user_metrics WHERE project_id = ${projectId} GROUP BY affiliate_id
    ) AS own ON own.affiliate_id = base.affiliate_id
    LEFT JOIN (
      -- Every user it referred, converted or not (the referrals themselves, not the facts).
      SELECT affiliate_id, count(*) AS end_users FROM referrals WHERE project_id = ${projectId} GROUP BY affiliate_id
    ) AS referred ON referred.affiliate_id = base.affiliate_id
    LEFT JOIN (
      SELECT master_id, sum(volume_usd) AS volume_usd FROM sub_affiliate_metrics WHERE project_id = ${projectId} GROUP BY master_id
    ) AS sub ON sub.master_id = base.affiliate_id
    WHERE m.affiliate_id = base.affiliate_id AND base.project_id = ${projectId}`.execute(trx);
}

/** Counts of what the projection holds for a project (what a rebuild answers). */
export async function projectFactCounts(db: Db, projectId: string): Promise<{ conversions: number; attributed: number }> {
  const row = await db
    .selectFrom('conversion_facts')
    .select((eb) => [eb.fn.countAll<bigint>().as('conversions'), eb.fn.count<bigint>('affiliate_id').as('attributed')])
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  return { conversions: Number(row.conversions), attributed: Number(row.attributed) };
}

/**
 * The figures and earnings of these affiliates (of one project), two queries whatever their number:
 * what the list shows per row, and what the affiliate detail, portal and master views reuse.
 * Affiliates without a row read as EMPTY_METRICS.
 */
export async function metricsOf(db: Db, projectId: string, affiliateIds: readonly string[]): Promise<Map<string, AffiliateMetricsRecord>> {
  const result = new Map<string, AffiliateMetricsRecord>();
  if (affiliateIds.length === 0) return result;
  const ids = [...new Set(affiliateIds)];
  const [rows, earnings] = await Promise.all([
    db
      .selectFrom('affiliate_metrics')
      .select((eb) => [
        'affiliate_id',
        eb.cast<string>('volume_usd', 'text').as('volume_usd'),
        eb.cast<string>('revenue_usd', 'text').as('revenue_usd'),
        'conversions',
        'end_users',
        'converting_users',
        eb.cast<string>('referred_volume_usd', 'text').as('referred_volume_usd'),
      ])
      .where('project_id', '=', projectId)
      .where('affiliate_id', 'in', ids)
      .execute(),
    db
      .selectFrom('affiliate_earnings as e')
      .leftJoin('metric_currencies as c', 'c.id', 'e.currency_id')
      .select(['e.affiliate_id', 'e.kind', 'e.currency_id', 'e.amount', 'c.chain_id', 'c.address', 'c.name', 'c.decimals'])
      .where('e.project_id', '=', projectId)
      .where('e.affiliate_id', 'in', ids)
      .orderBy('e.affiliate_id')
      .orderBy('c.name')
      .orderBy('e.currency_id')
      .execute(),
  ]);
  for (const row of rows) {
    result.set(row.affiliate_id, {
      volumeUsd: row.volume_usd,
      revenueUsd: row.revenue_usd,
      conversions: row.conversions,
      endUsers: row.end_users,
      convertingUsers: row.converting_users,
      referredVolumeUsd: row.referred_volume_usd,
      earnings: [],
      agencyEarnings: [],
    });
  }
  for (const earning of earnings) {
    const metrics = result.get(earning.affiliate_id);
    if (!metrics) continue;
    (earning.kind === 'affiliate' ? metrics.earnings : metrics.agencyEarnings).push(toEarningRecord(earning));
  }
  return result;
}

/** An amount per currency as read with a LEFT JOIN of metric_currencies (its columns null while the currency is unknown). */
export interface EarningRow {
  currency_id: string;
  amount: bigint | string;
  chain_id: bigint | null;
  address: string | null;
  name: string | null;
  decimals: number | null;
}

export function toEarningRecord(row: EarningRow): EarningRecord {
  return {
    currencyId: row.currency_id,
    amount: BigInt(row.amount),
    currency:
      row.address === null
        ? null
        : { id: row.currency_id, chainId: String(row.chain_id), address: row.address, name: row.name!, decimals: row.decimals! },
  };
}

/**
 * Many conversions into the projection, set-based and in ONE statement: the facts are inserted, and
 * each aggregate grows by the facts that were new (the insert's RETURNING rows, so no fact is read
 * back), grouped per key and written in key order (concurrent batches lock the same rows in the
 * same order: no deadlock). The same result as recordConversion one by one. Call it under
 * lockProjectMetrics(shared).
 */
export async function recordConversions(
  trx: Transaction<AgencyDatabase>,
  projectId: string,
  facts: readonly ConversionFact[],
  now: Date,
): Promise<void> {
  if (facts.length === 0) return;
  // Raw: data-modifying CTEs that feed each other (facts -> referred users -> converting users -> metrics) have no builder form.
  await sql`
    WITH inserted AS (${insertFactsStatement(projectId, facts, now)} RETURNING *),
    f AS (SELECT * FROM inserted WHERE affiliate_id IS NOT NULL),
    referred AS (
      INSERT INTO referred_user_metrics (affiliate_id, identifier_type, identifier, project_id, volume_usd, revenue_usd, conversions, first_conversion_at, last_conversion_at)
      SELECT affiliate_id, identifier_type, identifier, project_id, sum(coalesce(volume_usd, 0)), sum(coalesce(revenue_usd, 0)), count(*), min(occurred_at), max(occurred_at)
      FROM f GROUP BY project_id, affiliate_id, identifier_type, identifier ORDER BY affiliate_id, identifier_type, identifier
      ON CONFLICT (affiliate_id, identifier_type, identifier) DO UPDATE SET
        volume_usd = referred_user_metrics.volume_usd + excluded.volume_usd,
        revenue_usd = referred_user_metrics.revenue_usd + excluded.revenue_usd,
        conversions = referred_user_metrics.conversions + excluded.conversions,
        first_conversion_at = least(referred_user_metrics.first_conversion_at, excluded.first_conversion_at),
        last_conversion_at = greatest(referred_user_metrics.last_conversion_at, excluded.last_conversion_at)
      -- A row this statement inserted has no locking transaction (xmax = 0): a user's first conversion with that affiliate, one more converting user.
      RETURNING affiliate_id, (xmax = 0) AS first
    ),
    converting AS (SELECT affiliate_id AS id, count(*) FILTER (WHERE first) AS added FROM referred GROUP BY affiliate_id),
    own AS (
      SELECT affiliate_id AS id, sum(coalesce(volume_usd, 0)) AS volume_usd, sum(coalesce(revenue_usd, 0)) AS revenue_usd, count(*) AS conversions
      FROM f GROUP BY affiliate_id
    ),
    referred_volume AS (SELECT master_id AS id, sum(coalesce(volume_usd, 0)) AS volume_usd FROM f WHERE master_id IS NOT NULL GROUP BY master_id),
    keys AS (SELECT id FROM own UNION SELECT id FROM referred_volume),
    metrics AS (
      INSERT INTO affiliate_metrics AS m (affiliate_id, project_id, volume_usd, revenue_usd, conversions, converting_users, referred_volume_usd, updated_at)
      SELECT keys.id, ${projectId}::uuid, coalesce(own.volume_usd, 0), coalesce(own.revenue_usd, 0), coalesce(own.conversions, 0),
        coalesce(converting.added, 0), coalesce(referred_volume.volume_usd, 0), ${now}::timestamptz
      FROM keys LEFT JOIN own ON own.id = keys.id LEFT JOIN referred_volume ON referred_volume.id = keys.id LEFT JOIN converting ON converting.id = keys.id
      ORDER BY keys.id
      ON CONFLICT (affiliate_id) DO UPDATE SET
        volume_usd = m.volume_usd + excluded.volume_usd, revenue_usd = m.revenue_usd + excluded.revenue_usd,
        conversions = m.conversions + excluded.conversions, converting_users = m.converting_users + excluded.converting_users,
        referred_volume_usd = m.referred_volume_usd + excluded.referred_volume_usd, updated_at = excluded.updated_at
    ),
    counts AS (
      INSERT INTO affiliate_conversion_counts (affiliate_id, name, project_id, conversions)
      SELECT affiliate_id, name, project_id, count(*) FROM f GROUP BY project_id, affiliate_id, name ORDER BY affiliate_id, name
      ON CONFLICT (affiliate_id, name) DO UPDATE SET conversions = affiliate_conversion_counts.conversions + excluded.conversions
    ),
    earnings AS (
      INSERT INTO affiliate_earnings (affiliate_id, kind, currency_id, project_id, amount)
      SELECT * FROM (
        SELECT affiliate_id, 'affiliate' AS kind, currency_id, project_id, sum(affiliate_payout) AS amount
        FROM f WHERE currency_id IS NOT NULL AND affiliate_payout > 0 GROUP BY project_id, affiliate_id, currency_id
        UNION ALL
        SELECT master_id, 'agency', currency_id, project_id, sum(agency_payout)
        FROM f WHERE master_id IS NOT NULL AND currency_id IS NOT NULL AND agency_payout > 0 GROUP BY project_id, master_id, currency_id
      ) AS e ORDER BY affiliate_id, kind, currency_id
      ON CONFLICT (affiliate_id, kind, currency_id) DO UPDATE SET amount = affiliate_earnings.amount + excluded.amount
    ),
    subs AS (
      INSERT INTO sub_affiliate_metrics (master_id, affiliate_id, project_id, volume_usd, revenue_usd, conversions)
      SELECT master_id, affiliate_id, project_id, sum(coalesce(volume_usd, 0)), sum(coalesce(revenue_usd, 0)), count(*)
      FROM f WHERE master_id IS NOT NULL GROUP BY project_id, master_id, affiliate_id ORDER BY master_id, affiliate_id
      ON CONFLICT (master_id, affiliate_id) DO UPDATE SET
        volume_usd = sub_affiliate_metrics.volume_usd + excluded.volume_usd,
        revenue_usd = sub_affiliate_metrics.revenue_usd + excluded.revenue_usd,
        conversions = sub_affiliate_metrics.conversions + excluded.conversions
    )
    SELECT count(*) AS inserted FROM inserted`.execute(trx);
}
