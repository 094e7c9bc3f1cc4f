/**
 * Attribution: BatchResolveAttribution over gRPC, batches of 100 (user, at) at
 * 50 concurrent calls, against 100,000 affiliates and 1,000,000 referred users; beside the same
 * lookup as the one SQL statement the service runs (RESOLVE_ATTRIBUTION_SQL, prepared by the same
 * name), sent directly with pg at the same concurrency.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { AgencyServiceClient, type Attribution } from '../gen/referral/agency/v1/agency';
import { createGrpcClient } from '../services/platform/grpc/client';
import { SERVICE_CATALOG } from '../services/platform/service-catalog';
import {
  RESOLVE_ATTRIBUTION_SQL,
  RESOLVE_ATTRIBUTION_STATEMENT,
  resolveAttributionParameters,
} from '../services/agency/repositories/attribution.repository';
import { writeAffiliateCounts } from './affiliate-counts';
import { type Api, createProject } from './api';
import type { BenchConfig } from './config';
import { percentile, random, Samples } from './data';

export interface AttributionItem {
  identifier: string;
  at: Date;
}

export interface AttributionData {
  projectId: string;
  affiliates: number;
  referred: number;
  suspensions: number;
  /** Batches of `batchSize` items, sent in turn. */
  batches: AttributionItem[][];
}

export interface AttributionFigures {
  label: string;
  seconds: number;
  calls: number;
  errors: number;
  /** Items answered per second. */
  attributionsPerSecond: number;
  callsPerSecond: number;
  p50: number;
  p99: number;
  max: number;
  /** Items answered ATTRIBUTED, NOT_REFERRED and AFFILIATE_SUSPENDED (a sanity check of the mix). */
  outcomes: { attributed: number; notReferred: number; suspended: number };
}

const YEAR_START = Date.parse('2026-01-01T00:00:00.000Z');
const YEAR_MS = 365 * 86_400_000;

/** The address the seed SQL gives referred user g (two md5s, 40 hex digits), computed the same way here. */
function referredAddress(g: number): string {
  const md5 = (text: string) => createHash('md5').update(text).digest('hex');
  return `0x${(md5(`bench-user:${g}`) + md5(`bench-user2:${g}`)).slice(0, 40)}`;
}

/**
 * The data, straight into the agency schema (not measured): affiliates with a code each, every 50th
 * with a closed suspension (March) and every 100th also suspended since June, and referrals spread
 * over the affiliates, each referred at its own second of early 2026.
 */
/** Codes written per statement by the seed (see setUpAttributionData). */
const CODES_PER_STATEMENT = 5_000;

export async function setUpAttributionData(api: Api, platformKey: string, db: pg.Client, config: BenchConfig): Promise<AttributionData> {
  const { affiliates, referred, batchSize } = config.attribution;
  const project = await createProject(api, platformKey, 'bench attribution');
  const affiliateId = (g: string) => `md5('bench-affiliate:' || ${g})::uuid`;
  await db.query('BEGIN');
  // The per-row triggers that keep affiliate_counts and affiliate_region_counts would update one row
  // 100,000 times in this transaction (each update walks the row's growing version chain: minutes
  // each, as bench/affiliate-list.ts notes); the counts are written once below instead. `replica`
  // silences triggers (foreign keys included) for this transaction only.
  await db.query('SET LOCAL session_replication_role = replica');
  await db.query(
    `INSERT INTO agency.affiliates (id, project_id, identifier_type, identifier, name, status, joined_at, updated_at)
     SELECT ${affiliateId('g')}, $1, 'evm_address', '0x' || substr(md5('bench-aff:' || g) || md5('bench-aff2:' || g), 1, 40),
            'Affiliate ' || g, CASE WHEN g % 100 = 0 THEN 'suspended' ELSE 'active' END, '2025-12-01', '2025-12-01'
     FROM generate_series(0, $2::int - 1) g`,
    [project.id, affiliates],
  );
  await writeAffiliateCounts(db, project.id);
  await db.query('COMMIT');
  // In statements of CODES_PER_STATEMENT: each code's namespace trigger (agency migration 0022) holds an advisory lock
  // to its commit, and 100,000 of them in one statement outgrow PostgreSQL's lock table ("out of shared memory").
  for (let from = 0; from < affiliates; from += CODES_PER_STATEMENT) {
    await db.query(
      `INSERT INTO agency.affiliate_codes (project_id, code, affiliate_id, created_at)
       SELECT $1, 'code_' || g, ${affiliateId('g')}, '2025-12-01' FROM generate_series($2::int, $3::int - 1) g`,
      [project.id, from, Math.min(affiliates, from + CODES_PER_STATEMENT)],
    );
  }
  const closed = await db.query(
    `INSERT INTO agency.affiliate_suspensions (affiliate_id, project_id, reason, suspended_at, reactivated_at)
     SELECT ${affiliateId('g')}, $1, 'bench', '2026-03-01', '2026-04-01' FROM generate_series(0, $2::int - 1) g WHERE g % 50 = 0`,
    [project.id, affiliates],
  );
  const open = await db.query(
    `INSERT INTO agency.affiliate_suspensions (affiliate_id, project_id, reason, suspended_at)
     SELECT ${affiliateId('g')}, $1, 'bench', '2026-06-01' FROM generate_series(0, $2::int - 1) g WHERE g % 100 = 0`,
    [project.id, affiliates],
  );
  await db.query(
    `INSERT INTO agency.referrals (project_id, identifier_type, identifier, affiliate_id, code, referred_at)
     SELECT $1, 'evm_address', '0x' || substr(md5('bench-user:' || g) || md5('bench-user2:' || g), 1, 40),
            ${affiliateId('(g % $2::int)')}, 'code_' || (g % $2::int), timestamptz '2026-01-01' + g * interval '1 second'
     FROM generate_series(0, $3::int - 1) g`,
    [project.id, affiliates, referred],
  );
  // Referral levels (docs/claims.md#referral-levels): every affiliate but the first is itself referred, by
  // affiliate ⌊g/5⌋ before any user was, so the affiliates form a tree about seven levels deep and nearly
  // every attribution resolves a full upline (levels 2..4), some of it suspended.
  await db.query(
    `INSERT INTO agency.referrals (project_id, identifier_type, identifier, affiliate_id, code, referred_at)
     SELECT $1, 'evm_address', '0x' || substr(md5('bench-aff:' || g) || md5('bench-aff2:' || g), 1, 40),
            ${affiliateId('(g / 5)')}, 'code_' || (g / 5), '2025-12-15'
     FROM generate_series(1, $2::int - 1) g`,
    [project.id, affiliates],
  );
  // Masters and tiers: every 10th affiliate is a master (spread 500 bps, 700 from
  // July), the next five are its sub-affiliates from February; every 20th has a tier protected in
  // April. Every lookup then reads the binding, spread and protection of its moment.
  const tier = await api.call<{ id: string }>('POST', `/api/v1/projects/${project.id}/audiences`, project.keys.admin, { name: 'Gold', tier_rank: 1 });
  await db.query(
    `INSERT INTO agency.agency_designations (project_id, affiliate_id, designated_at)
     SELECT $1, ${affiliateId('g')}, '2025-12-01' FROM generate_series(0, $2::int - 1) g WHERE g % 10 = 0`,
    [project.id, affiliates],
  );
  await db.query(
    `INSERT INTO agency.agency_spreads (designation_id, master_id, spread_bps, valid_from, valid_to)
     SELECT d.id, d.affiliate_id, s.bps, s.valid_from, s.valid_to FROM agency.agency_designations d
     CROSS JOIN (VALUES (500, timestamptz '2025-12-01', timestamptz '2026-07-01'), (700, timestamptz '2026-07-01', NULL)) s(bps, valid_from, valid_to)
     WHERE d.project_id = $1`,
    [project.id],
  );
  await db.query(
    `INSERT INTO agency.sub_affiliate_bindings (project_id, designation_id, master_id, affiliate_id, bound_from)
     SELECT $1, d.id, d.affiliate_id, ${affiliateId('g')}, '2026-02-01'
     FROM generate_series(0, $2::int - 1) g JOIN agency.agency_designations d ON d.affiliate_id = ${affiliateId('(g - g % 10)')}
     WHERE g % 10 BETWEEN 1 AND 5`,
    [project.id, affiliates],
  );
  await db.query(
    `INSERT INTO agency.tier_protections (project_id, affiliate_id, tier_id, starts_at, expires_at)
     SELECT $1, ${affiliateId('g')}, $3, '2026-04-01', '2026-05-01' FROM generate_series(0, $2::int - 1) g WHERE g % 20 = 5`,
    [project.id, affiliates, tier.body.id],
  );
  // Current tiers, from the agency's projections as attribution reads them: every 7th
  // affiliate is in Gold, every 21st also in Platinum (rank 2), every 5th in a segment that is no
  // tier, so the tier lookup of most items probes memberships and some find tiers among them. The
  // projections are written directly here (seeding, not measured); the tiers' own events, applied
  // later by the agency's consumer, write the same rows.
  const platinum = await api.call<{ id: string }>('POST', `/api/v1/projects/${project.id}/audiences`, project.keys.admin, {
    name: 'Platinum',
    tier_rank: 2,
  });
  const plain = await api.call<{ id: string }>('POST', `/api/v1/projects/${project.id}/audiences`, project.keys.admin, { name: 'Newsletter' });
  await db.query(
    `INSERT INTO agency.segment_tiers (segment_id, project_id, name, tier_rank, changed_at)
     VALUES ($2, $1, 'Gold', 1, '2025-12-01'), ($3, $1, 'Platinum', 2, '2025-12-01') ON CONFLICT (segment_id) DO NOTHING`,
    [project.id, tier.body.id, platinum.body.id],
  );
  const tiered = await db.query(
    `INSERT INTO agency.audience_memberships (project_id, segment_id, identifier_type, identifier, kind, present, changed_at)
     SELECT $1, m.segment_id, 'evm_address', '0x' || substr(md5('bench-aff:' || g) || md5('bench-aff2:' || g), 1, 40), 'static', true, '2025-12-01'
     FROM generate_series(0, $2::int - 1) g
     CROSS JOIN LATERAL (VALUES ($3::uuid, g % 7 = 0), ($4::uuid, g % 21 = 0), ($5::uuid, g % 5 = 0)) m(segment_id, member)
     WHERE m.member`,
    [project.id, affiliates, tier.body.id, platinum.body.id, plain.body.id],
  );
  process.stderr.write(`bench: attribution: ${tiered.rowCount ?? 0} memberships seeded (tiers: every 7th affiliate Gold, every 21st Platinum)\n`);
  // A settled table, as in production: statistics and the visibility map.
  await db.query(
    'VACUUM (ANALYZE) agency.affiliates, agency.affiliate_codes, agency.affiliate_suspensions, agency.referrals, agency.agency_designations, agency.agency_spreads, agency.sub_affiliate_bindings, agency.tier_protections, agency.audience_memberships, agency.segment_tiers',
  );
  await db.query('CHECKPOINT');

  // 90% referred users, 10% unknown ones; moments spread over 2026 (some before the referral, some in a suspension).
  const rng = random(11);
  const batches: AttributionItem[][] = [];
  for (let b = 0; b < 2_000; b += 1) {
    const batch: AttributionItem[] = [];
    for (let i = 0; i < batchSize; i += 1) {
      const identifier = rng() < 0.9 ? referredAddress(Math.floor(rng() * referred)) : referredAddress(referred + b * batchSize + i);
      batch.push({ identifier, at: new Date(YEAR_START + Math.floor(rng() * YEAR_MS)) });
    }
    batches.push(batch);
  }
  return { projectId: project.id, affiliates, referred, suspensions: (closed.rowCount ?? 0) + (open.rowCount ?? 0), batches };
}

type Outcome = 'attributed' | 'not_referred' | 'suspended';

export interface AttributionPath {
  label: string;
  /** One batch; answers each item's outcome, affiliate, master, spread and active tier (for the cross-check). */
  resolve(
    batch: AttributionItem[],
  ): Promise<Array<{ outcome: Outcome; affiliateId: string | null; masterId: string | null; spreadBps: number; tierId: string | null }>>;
  close(): Promise<void>;
}

/** Ours: BatchResolveAttribution over one gRPC channel, as the claim service would call it. */
export function grpcPath(address: string, projectId: string): AttributionPath {
  const client = createGrpcClient(AgencyServiceClient, address, 10_000);
  const outcomeOf = (result: Attribution): Outcome => {
    if (result.error) throw new Error(`item refused: ${result.error.code} ${result.error.message}`);
    return result.outcome === 1 ? 'attributed' : result.outcome === 3 ? 'suspended' : 'not_referred';
  };
  return {
    label: 'ours: BatchResolveAttribution over gRPC',
    resolve: async (batch) => {
      const { results } = await client.call.batchResolveAttribution({
        projectId,
        items: batch.map((item) => ({ user: { identifier: item.identifier, identifierType: 'evm_address' }, at: item.at })),
      });
      return results.map((result) => ({
        outcome: outcomeOf(result),
        affiliateId: result.affiliate?.id ?? null,
        masterId: result.master?.id ?? null,
        spreadBps: result.spreadBps,
        tierId: result.affiliate ? (result.activeTierId ?? null) : null,
      }));
    },
    close: async () => client.close(),
  };
}

/** The physical limit: the service's statement, sent with pg over `connections` connections. */
export function directPath(databaseUrl: string, projectId: string, connections: number): AttributionPath {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: connections,
    application_name: 'bench-direct-attribution',
    options: `-c search_path=${SERVICE_CATALOG.agency.schema}`,
  });
  return {
    label: 'direct: the same statement with pg',
    resolve: async (batch) => {
      const parameters = resolveAttributionParameters(
        projectId,
        batch.map((item) => ({ user: { identifier: item.identifier, identifierType: 'evm_address' }, at: item.at })),
      );
      const { rows } = await pool.query<{
        affiliate_id: string | null;
        suspended: boolean;
        master_id: string | null;
        spread_bps: number | null;
        master_suspended: boolean;
        active_tier_id: string | null;
      }>({ name: RESOLVE_ATTRIBUTION_STATEMENT, text: RESOLVE_ATTRIBUTION_SQL, values: parameters });
      return rows.map((row) => {
        const paidMaster = row.affiliate_id !== null && row.master_id !== null && !row.master_suspended;
        return {
          outcome: row.affiliate_id === null ? 'not_referred' : row.suspended ? 'suspended' : 'attributed',
          affiliateId: row.affiliate_id,
          masterId: paidMaster ? row.master_id : null,
          spreadBps: paidMaster ? (row.spread_bps ?? 0) : 0,
          tierId: row.affiliate_id === null ? null : row.active_tier_id,
        };
      });
    },
    close: () => pool.end(),
  };
}

/** Both paths answer the first batches alike, item by item. */
export async function crossCheckAttribution(ours: AttributionPath, direct: AttributionPath, data: AttributionData): Promise<string> {
  const counts = { attributed: 0, not_referred: 0, suspended: 0 };
  let withMaster = 0;
  let withTier = 0;
  for (const batch of data.batches.slice(0, 5)) {
    const [a, b] = await Promise.all([ours.resolve(batch), direct.resolve(batch)]);
    if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error('gRPC and direct SQL disagree on a batch of attributions');
    for (const item of a) {
      counts[item.outcome] += 1;
      if (item.masterId !== null) withMaster += 1;
      if (item.tierId !== null) withTier += 1;
    }
  }
  return `5 batches agree: ${counts.attributed} attributed, ${counts.not_referred} not referred, ${counts.suspended} suspended; ${withMaster} with a master and its spread, ${withTier} with an active tier`;
}

/** `concurrency` loops, each sending the next batch as soon as its last one is answered, for `durationS`. */
export async function runAttributionLoad(
  path: AttributionPath,
  data: AttributionData,
  concurrency: number,
  durationS: number,
  label = path.label,
): Promise<AttributionFigures> {
  let next = 0;
  let calls = 0;
  let errors = 0;
  let items = 0;
  let firstError: string | undefined;
  const outcomes = { attributed: 0, notReferred: 0, suspended: 0 };
  const latencies = new Samples();
  const started = performance.now();
  const deadline = started + durationS * 1000;
  const loop = async () => {
    while (performance.now() < deadline) {
      const batch = data.batches[next++ % data.batches.length]!;
      const sent = performance.now();
      try {
        const results = await path.resolve(batch);
        calls += 1;
        items += results.length;
        for (const result of results) {
          if (result.outcome === 'attributed') outcomes.attributed += 1;
          else if (result.outcome === 'suspended') outcomes.suspended += 1;
          else outcomes.notReferred += 1;
        }
      } catch (error) {
        errors += 1;
        firstError ??= (error as Error).message;
      }
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  if (firstError) process.stderr.write(`bench: ${label}: ${errors} failed calls, the first: ${firstError}\n`);
  const seconds = (performance.now() - started) / 1000;
  const sorted = latencies.sorted();
  return {
    label,
    seconds,
    calls,
    errors,
    attributionsPerSecond: items / seconds,
    callsPerSecond: calls / seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    outcomes,
  };
}

/** EXPLAIN (ANALYZE, BUFFERS) of one batch, after the load. */
export async function explainAttribution(databaseUrl: string, data: AttributionData): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl, options: `-c search_path=${SERVICE_CATALOG.agency.schema}` });
  await client.connect();
  try {
    const batch = data.batches[0]!.map((item) => ({ user: { identifier: item.identifier, identifierType: 'evm_address' as const }, at: item.at }));
    const plan = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN (ANALYZE, BUFFERS) ${RESOLVE_ATTRIBUTION_SQL}`,
      resolveAttributionParameters(data.projectId, batch),
    );
    return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
  } finally {
    await client.end();
  }
}
