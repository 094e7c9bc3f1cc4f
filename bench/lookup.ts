/**
 * Lookup: getUserAudiences through the gateway with autocannon, and the same lookup as the one
 * SQL query the repository runs, sent directly with pg at the same concurrency.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { type Api, createProject, createSegment, type Project } from './api';
import type { BenchConfig } from './config';
import { address, mixedCase, random } from './data';
import { type RunFigures, runHttpLoad, runQueryLoad } from './load';

export interface LookupData {
  project: Project;
  segmentIds: string[];
  users: number;
  entries: number;
  /** The identifiers the load sends, in order, as sent (some mixed case, some unknown). */
  requests: string[];
}

export type { RunFigures } from './load';

const USER_NS = 'lookup-user';

/** 20 segments (some with badges) over HTTP, then the entries straight into the audience schema with COPY. */
export async function setUpLookupData(api: Api, platformKey: string, db: pg.Client, config: BenchConfig): Promise<LookupData> {
  const { segments, badged, entries } = config.lookup;
  const project = await createProject(api, platformKey, 'bench lookup');
  const segmentIds: string[] = [];
  for (let i = 0; i < segments; i += 1) segmentIds.push((await createSegment(api, project, `Tier ${String(i + 1).padStart(2, '0')}`)).id);
  for (let i = 0; i < badged; i += 1) {
    await api.call('POST', `/v1/audience-segments/${segmentIds[i * Math.floor(segments / badged)]}/badge`, project.keys.service, {
      name: `Badge ${i + 1}`,
      description: `Holders of tier ${i + 1}`,
      image_url: `https://cdn.example.com/badges/${i + 1}.png`,
    });
  }

  // Each user is in one to three distinct segments, until the total reaches `entries`.
  const rng = random(42);
  const addedAt = new Date().toISOString();
  let users = 0;
  let written = 0;
  function* rows() {
    let text = '';
    while (written < entries) {
      const identifier = address(USER_NS, users);
      users += 1;
      const k = Math.min(1 + Math.floor(rng() * 3), entries - written);
      const chosen = new Set<number>();
      while (chosen.size < k) chosen.add(Math.floor(rng() * segments));
      for (const index of chosen) {
        text += `${segmentIds[index]}\t${project.id}\tevm_address\t${identifier}\tstatic\tapi\t${addedAt}\n`;
        written += 1;
      }
      if (text.length > 512 * 1024) {
        yield text;
        text = '';
      }
    }
    if (text) yield text;
  }
  await pipeline(
    Readable.from(rows()),
    db.query(copyFrom('COPY audience.entries (segment_id, project_id, identifier_type, identifier, kind, source, added_at) FROM STDIN')),
  );
  await db.query(
    `UPDATE audience.segments s SET entries_count = c.n
     FROM (SELECT segment_id, count(*) AS n FROM audience.entries WHERE project_id = $1 GROUP BY segment_id) c
     WHERE s.id = c.segment_id`,
    [project.id],
  );
  // A settled table, as in production: statistics and the visibility map (index-only scans).
  await db.query('VACUUM (ANALYZE) audience.entries, audience.segments, audience.badges, audience.entry_batches');
  await db.query('CHECKPOINT');

  // The request mix: mostly users that exist, some unknown, some sent in mixed letter case.
  const mix = random(7);
  const requests: string[] = [];
  for (let i = 0; i < 200_000; i += 1) {
    const identifier = mix() < config.lookup.existingShare ? address(USER_NS, Math.floor(mix() * users)) : address('lookup-missing', i);
    requests.push(mix() < config.lookup.mixedCaseShare ? mixedCase(identifier) : identifier);
  }
  return { project, segmentIds, users, entries: written, requests };
}

function lookupPath(identifier: string): string {
  return `/v1/audiences/audience-segments/user?user_identifier=${identifier}&user_identifier_type=evm_address`;
}

/** Checks, before the load, that the gateway and the direct query agree on a few users. */
export async function crossCheck(api: Api, data: LookupData, direct: DirectLookup): Promise<string[]> {
  const notes: string[] = [];
  const samples = [address(USER_NS, 0), mixedCase(address(USER_NS, 1)), address(USER_NS, data.users - 1), address('lookup-missing', -1)];
  for (const identifier of samples) {
    const { body } = await api.call<{ results: { id: string; badge_name: string | null }[] }>(
      'GET',
      lookupPath(identifier),
      data.project.keys.service,
    );
    const rows = await direct.query(identifier.toLowerCase());
    const viaGateway = body.results.map((result) => result.id).join(',');
    const viaSql = rows.map((row) => row.id).join(',');
    if (viaGateway !== viaSql) throw new Error(`gateway and direct query disagree for ${identifier}: ${viaGateway} vs ${viaSql}`);
    notes.push(`${identifier}: ${body.results.length} segment(s), ${body.results.filter((r) => r.badge_name !== null).length} with a badge`);
  }
  return notes;
}

/** getUserAudiences through the gateway, at `connections` for `durationS`, one user per request. */
export function runGatewayLoad(
  baseUrl: string,
  key: string,
  requests: string[],
  connections: number,
  durationS: number,
  label: string,
): Promise<RunFigures> {
  let next = 0;
  return runHttpLoad(baseUrl, key, () => lookupPath(requests[next++ % requests.length]!), connections, durationS, label);
}

export interface DirectLookup {
  sql: string;
  query(identifier: string): Promise<{ id: string }[]>;
  pool: pg.Pool;
  close(): Promise<void>;
}

/**
 * The physical limit of the lookup, as the issue defines it: one SQL query per lookup, sent
 * directly with pg. It is the query the service would run for a single user (the service itself
 * answers concurrent lookups together, with one query per batch: EntryRepository.findUserAudiences).
 */
export const SINGLE_LOOKUP_SQL = `SELECT s.id, s.name, b.name AS badge_name, b.description AS badge_description, b.image_url AS badge_image_url
FROM entries e
JOIN segments s ON s.id = e.segment_id
LEFT JOIN badges b ON b.segment_id = s.id
WHERE e.project_id = $1 AND e.identifier = $2 AND e.identifier_type = $3
ORDER BY s.created_at, s.id`;

/**
 * Sends SINGLE_LOOKUP_SQL over a pool of `connections` with the service's search_path. `prepared`
 * sends it as a named prepared statement (planned once per connection) instead of pg's default
 * unnamed statement: a stricter limit, reported beside the one the goal is measured against.
 */
export async function openDirectLookup(databaseUrl: string, projectId: string, connections: number, prepared = false): Promise<DirectLookup> {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: connections,
    application_name: 'bench-direct',
    options: '-c search_path=audience',
  });
  const name = prepared ? 'bench-user-audiences' : undefined;
  let closed = false;
  return {
    sql: SINGLE_LOOKUP_SQL,
    pool,
    query: async (identifier) =>
      (await pool.query<{ id: string }>({ name, text: SINGLE_LOOKUP_SQL, values: [projectId, identifier, 'evm_address'] })).rows,
    close: async () => {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

/** The direct query at `connections` concurrent loops for `durationS`, the same user mix. */
export function runDirectLoad(direct: DirectLookup, requests: string[], connections: number, durationS: number, label: string): Promise<RunFigures> {
  // The service's canonical form of an evm address: lowercase.
  return runQueryLoad((n) => direct.query(requests[n % requests.length]!.toLowerCase()), connections, durationS, label);
}

/** EXPLAIN (ANALYZE, BUFFERS) of the lookup for one user that exists. */
export async function explainLookup(direct: DirectLookup, projectId: string): Promise<string> {
  const client = await direct.pool.connect();
  try {
    const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${direct.sql}`, [
      projectId,
      address(USER_NS, 0),
      'evm_address',
    ]);
    return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
  } finally {
    client.release();
  }
}
