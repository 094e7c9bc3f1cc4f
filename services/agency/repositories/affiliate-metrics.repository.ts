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
  /** Base units paid to the affiliate (its level-1 affiliate_payout) and to its master (agency_payout). */
  affiliatePayout: bigint;
  agencyPayout: bigint;
  /**
   * The upline frozen with the attribution (levels 2..4, docs/claims.md#referral-levels), each with the base
   * units its level was paid (0 when its terms paid that level nothing); absent or empty: level 1 only.
   */
  upline?: readonly FactLevel[];
}

/** One upper referral level of a conversion: its affiliate and what it was paid there. */
export interface FactLevel {
  level: number;
  affiliateId: string;
  payout: bigint;
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
  /** Its codes' clicks, all time (code_clicks, counted on its metrics row: migration 0023). */
  clicks: bigint;
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
  clicks: 0n,
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

  /**
   * Reversals into the facts, without touching any aggregate (recompute does that), in one
   * transaction; how many were new. A reversal whose conversion has no fact is skipped.
   */
  async applyReversals(projectId: string, reversals: readonly ReversalFact[], now: Date): Promise<number> {
    if (reversals.length === 0) return 0;
    return this.db.transaction().execute(async (trx) => {
      let applied = 0;
      for (const reversal of reversals) {
        if ((await recordReversal(trx, projectId, reversal, now, { aggregates: false })) === 'applied') applied++;
      }
      return applied;
    });
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
 * The projection's lock, per project: events apply under its shared form (conversions never wait
 * for each other), a rebuild's recomputation and a reversal under its exclusive form, so no event is
 * applied half inside and half outside a recomputation, and a reversal never deadlocks with a batch.
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

/**
 * A referral ended (deleteReferral), in the transaction that moved it out of `referrals`: one end user
 * fewer, as a rebuild (which counts the referrals) would find. Under lockProjectMetrics(shared), as above.
 */
export async function uncountReferredUser(trx: Transaction<AgencyDatabase>, projectId: string, affiliateId: string, now: Date): Promise<void> {
  await addToAffiliateMetrics(trx, projectId, affiliateId, now, { end_users: sql`greatest(m.end_users - 1, 0)` });
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
  const added = facts.filter((fact) => ids.has(fact.conversionId));
  await insertFactLevels(db, projectId, added);
  return added;
}

/**
 * The upper referral levels of facts just inserted (by the caller's statement, in its transaction), so
 * they are written exactly once, as their facts are (migration 0024). One statement whatever their number.
 */
async function insertFactLevels(db: Db, projectId: string, facts: readonly ConversionFact[]): Promise<void> {
  const levels = facts.flatMap((fact) => (fact.upline ?? []).map((level) => ({ fact, level })));
  if (levels.length === 0) return;
  const column = <T>(pick: (row: (typeof levels)[number]) => T) => levels.map(pick);
  // Raw: INSERT ... SELECT over unnest'ed arrays, as the facts' own insert.
  await sql`
    INSERT INTO conversion_fact_levels (project_id, conversion_id, level, affiliate_id, occurred_at, payout)
    SELECT ${projectId}::uuid, l.conversion_id, l.level, l.affiliate_id, l.occurred_at, l.payout
    FROM unnest(
      ${column((row) => row.fact.conversionId)}::text[], ${column((row) => row.level.level)}::smallint[],
      ${column((row) => row.level.affiliateId)}::uuid[], ${column((row) => row.fact.occurredAt)}::timestamptz[],
      ${column((row) => row.level.payout)}::numeric[]
    ) AS l(conversion_id, level, affiliate_id, occurred_at, payout)
    ORDER BY l.conversion_id, l.level
    ON CONFLICT (project_id, conversion_id, level) DO NOTHING`.execute(db);
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
    // The user's first counted conversion with this affiliate (a new row, or one whose conversions were all fully reversed).
    .returning(sql<boolean>`(conversions = 1)`.as('first'))
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

/** The facts of a group that count as conversions: all but the fully reversed. */
export const COUNTED_CONVERSIONS = sql<bigint>`count(*) FILTER (WHERE reversed_bps < 10000)`;

/** The distinct users of a group's counted conversions. */
export const COUNTED_USERS = sql<bigint>`count(DISTINCT (identifier_type, identifier)) FILTER (WHERE reversed_bps < 10000)`;

/**
 * Every aggregate of the project recomputed from its facts, in the caller's transaction (under
 * lockProjectMetrics(exclusive)): what the events would have built, whatever was lost or doubled.
 */
export async function recomputeProjectMetrics(trx: Transaction<AgencyDatabase>, projectId: string, now: Date): Promise<void> {
  // A fully reversed conversion keeps its (zero) figures and its user's row but counts as no conversion.
  const counted = COUNTED_CONVERSIONS;
  for (const table of ['referred_user_metrics', 'affiliate_conversion_counts', 'affiliate_earnings', 'sub_affiliate_metrics'] as const) {
    await trx.deleteFrom(table).where('project_id', '=', projectId).execute();
  }
  // Raw: INSERT ... SELECT with GROUP BY over the facts (set-based, one statement per table).
  await sql`
    INSERT INTO referred_user_metrics (affiliate_id, identifier_type, identifier, project_id, volume_usd, revenue_usd, conversions, first_conversion_at, last_conversion_at)
    SELECT affiliate_id, identifier_type, identifier, project_id, sum(coalesce(volume_usd, 0)), sum(coalesce(revenue_usd, 0)), ${counted}, min(occurred_at), max(occurred_at)
    FROM conversion_facts WHERE project_id = ${projectId} AND affiliate_id IS NOT NULL
    GROUP BY project_id, affiliate_id, identifier_type, identifier`.execute(trx);
  await sql`
    INSERT INTO affiliate_conversion_counts (affiliate_id, name, project_id, conversions)
    SELECT affiliate_id, name, project_id, ${counted}
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
    SELECT master_id, affiliate_id, project_id, sum(coalesce(volume_usd, 0)), sum(coalesce(revenue_usd, 0)), ${counted}
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
      SELECT affiliate_id, sum(volume_usd) AS volume_usd, sum(revenue_usd) AS revenue_usd, sum(conversions) AS conversions,
             count(*) FILTER (WHERE conversions > 0) AS converting_users
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
        'clicks',
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
      clicks: row.clicks,
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
  const { rows } = await sql`
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
      RETURNING affiliate_id, identifier_type, identifier, conversions
    ),
    -- A user whose counted conversions with that affiliate are now exactly this statement's had none before (a new row, or all
    -- fully reversed): one more converting user.
    converting AS (
      SELECT r.affiliate_id AS id, count(*) FILTER (WHERE r.conversions = g.conversions) AS added
      FROM referred r JOIN (SELECT affiliate_id, identifier_type, identifier, count(*) AS conversions FROM f GROUP BY 1, 2, 3) g
        USING (affiliate_id, identifier_type, identifier)
      GROUP BY r.affiliate_id
    ),
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
    SELECT conversion_id FROM inserted`.execute(trx);
  const ids = new Set((rows as Array<{ conversion_id: string }>).map((row) => row.conversion_id));
  await insertFactLevels(
    trx,
    projectId,
    facts.filter((fact) => ids.has(fact.conversionId)),
  );
}

/** One reversal of a paid conversion as the projection applies it (claim.conversion.reversed, or a rebuild). */
export interface ReversalFact {
  reversalId: string;
  conversionId: string;
  /** Basis points of the whole conversion this reversal took back. */
  shareBps: number;
  /** The reversed share of the conversion's volume and revenue (USD decimal strings); null when it had none. */
  volumeUsd: string | null;
  revenueUsd: string | null;
  /** Base units taken back from the affiliate (its level-1 affiliate_payout) and from its master (agency_payout). */
  affiliatePayout: bigint;
  agencyPayout: bigint;
  /** Base units taken back from each upper level's affiliate_payout (levels 2..4); absent: none. */
  levelPayouts?: ReadonlyArray<{ level: number; payout: bigint }>;
}

/** no_fact: the conversion's fact is not in the projection (its event has not arrived, or was left out). */
export type ReversalApplied = 'applied' | 'replayed' | 'no_fact';

interface ReversedFactRow {
  affiliate_id: string | null;
  master_id: string | null;
  identifier_type: string;
  identifier: string;
  name: string;
  currency_id: string | null;
  reversed_bps: number;
}

/**
 * One reversal into the projection: recorded once (its primary key), its shares taken out of the
 * conversion's fact (whose figures are net of its reversals), and, with `aggregates` (an event; a
 * rebuild recomputes them after), out of every aggregate the fact was added to. A reversal that
 * completes the conversion's 10000 bps also takes the conversion out of every count, and its user
 * out of the affiliate's converting users when it was that user's last one counted. The fact is
 * locked first, so reversals of one conversion apply one after the other, and a reversal never
 * comes before its fact: a fact absent now is answered no_fact (the caller retries or skips).
 * Exact: each figure loses a share of what its fact added, and the facts' checks refuse less than zero.
 * Call it under lockProjectMetrics(shared) with `aggregates`.
 */
export async function recordReversal(
  trx: Transaction<AgencyDatabase>,
  projectId: string,
  reversal: ReversalFact,
  now: Date,
  { aggregates }: { aggregates: boolean },
): Promise<ReversalApplied> {
  const fact = await trx
    .selectFrom('conversion_facts')
    .select('conversion_id')
    .where('project_id', '=', projectId)
    .where('conversion_id', '=', reversal.conversionId)
    .forUpdate()
    .executeTakeFirst();
  if (!fact) return 'no_fact';
  const recorded = await trx
    .insertInto('conversion_fact_reversals')
    .values({
      project_id: projectId,
      reversal_id: reversal.reversalId,
      conversion_id: reversal.conversionId,
      share_bps: reversal.shareBps,
      volume_usd: reversal.volumeUsd,
      revenue_usd: reversal.revenueUsd,
      affiliate_payout: reversal.affiliatePayout,
      agency_payout: reversal.agencyPayout,
      recorded_at: now,
    })
    .onConflict((conflict) => conflict.columns(['project_id', 'reversal_id']).doNothing())
    .returning('reversal_id')
    .executeTakeFirst();
  if (!recorded) return 'replayed';
  const volume = reversal.volumeUsd ?? '0';
  const revenue = reversal.revenueUsd ?? '0';
  // Raw: arithmetic on NUMERIC columns, NULL figures staying NULL.
  const { rows } = await sql<ReversedFactRow>`
    UPDATE conversion_facts SET
      volume_usd = volume_usd - ${volume}::numeric, revenue_usd = revenue_usd - ${revenue}::numeric,
      affiliate_payout = affiliate_payout - ${reversal.affiliatePayout}::numeric, agency_payout = agency_payout - ${reversal.agencyPayout}::numeric,
      reversed_bps = reversed_bps + ${reversal.shareBps}
    WHERE project_id = ${projectId} AND conversion_id = ${reversal.conversionId}
    RETURNING affiliate_id, master_id, identifier_type, identifier, name, currency_id, reversed_bps`.execute(trx);
  const reversed = rows[0]!;
  // The upper levels' payouts, net of the reversal as the fact's own are; their volumes are the fact's (already net).
  for (const { level, payout } of reversal.levelPayouts ?? []) {
    if (payout === 0n) continue;
    await sql`
      UPDATE conversion_fact_levels SET payout = payout - ${payout}::numeric
      WHERE project_id = ${projectId} AND conversion_id = ${reversal.conversionId} AND level = ${level}`.execute(trx);
  }
  const affiliateId = reversed.affiliate_id;
  if (aggregates && affiliateId !== null) await takeFromAggregates(trx, projectId, reversal, { ...reversed, affiliate_id: affiliateId }, now);
  return 'applied';
}

/**
 * What a reversal takes from the aggregates its fact was added to, in the order the conversions'
 * statements lock them (referred users, metrics by id, counts, earnings by key, sub-affiliates),
 * so a reversal and a batch of conversions wait for each other rather than deadlock.
 */
async function takeFromAggregates(
  trx: Transaction<AgencyDatabase>,
  projectId: string,
  reversal: ReversalFact,
  fact: ReversedFactRow & { affiliate_id: string },
  now: Date,
): Promise<void> {
  const affiliateId = fact.affiliate_id;
  const full = fact.reversed_bps === 10_000 ? 1 : 0;
  const volume = reversal.volumeUsd ?? '0';
  const revenue = reversal.revenueUsd ?? '0';
  const referred = await sql<{ conversions: string }>`
    UPDATE referred_user_metrics SET volume_usd = volume_usd - ${volume}::numeric, revenue_usd = revenue_usd - ${revenue}::numeric,
      conversions = conversions - ${full}
    WHERE affiliate_id = ${affiliateId} AND identifier_type = ${fact.identifier_type} AND identifier = ${fact.identifier}
    RETURNING conversions`.execute(trx);
  // The user's last counted conversion with this affiliate: it converts no more.
  const lastOfUser = full === 1 && referred.rows.length === 1 && BigInt(referred.rows[0]!.conversions) === 0n ? 1 : 0;
  const ids = [...new Set([affiliateId, ...(fact.master_id === null ? [] : [fact.master_id])])].sort();
  await sql`SELECT 1 FROM affiliate_metrics WHERE affiliate_id = ANY(${ids}::uuid[]) ORDER BY affiliate_id FOR UPDATE`.execute(trx);
  await sql`
    UPDATE affiliate_metrics SET volume_usd = volume_usd - ${volume}::numeric, revenue_usd = revenue_usd - ${revenue}::numeric,
      conversions = conversions - ${full}, converting_users = converting_users - ${lastOfUser}, updated_at = ${now}
    WHERE affiliate_id = ${affiliateId}`.execute(trx);
  if (full === 1) {
    await sql`
      UPDATE affiliate_conversion_counts SET conversions = conversions - 1
      WHERE affiliate_id = ${affiliateId} AND name = ${fact.name}`.execute(trx);
  }
  if (fact.currency_id !== null) {
    const earnings = [
      ...(reversal.affiliatePayout > 0n ? [{ id: affiliateId, kind: 'affiliate', amount: reversal.affiliatePayout }] : []),
      ...(fact.master_id !== null && reversal.agencyPayout > 0n ? [{ id: fact.master_id, kind: 'agency', amount: reversal.agencyPayout }] : []),
    ].sort((a, b) => a.id.localeCompare(b.id) || a.kind.localeCompare(b.kind));
    for (const earning of earnings) {
      const key = sql`affiliate_id = ${earning.id} AND kind = ${earning.kind} AND currency_id = ${fact.currency_id}`;
      await sql`UPDATE affiliate_earnings SET amount = amount - ${earning.amount}::numeric WHERE ${key}`.execute(trx);
      // An amount all taken back is no earning, as a rebuild (summing positive payouts only) finds it.
      await sql`DELETE FROM affiliate_earnings WHERE ${key} AND amount = 0`.execute(trx);
    }
  }
  if (fact.master_id === null) return;
  await sql`
    UPDATE sub_affiliate_metrics SET volume_usd = volume_usd - ${volume}::numeric, revenue_usd = revenue_usd - ${revenue}::numeric,
      conversions = conversions - ${full}
    WHERE master_id = ${fact.master_id} AND affiliate_id = ${affiliateId}`.execute(trx);
  await sql`
    UPDATE affiliate_metrics SET referred_volume_usd = referred_volume_usd - ${volume}::numeric, updated_at = ${now}
    WHERE affiliate_id = ${fact.master_id}`.execute(trx);
}
