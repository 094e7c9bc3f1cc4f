/**
 * Reversals (issue 23 §6): N conversions paid through the batch endpoint (set-up, not measured), then
 * each reversed whole through POST /api/v1/conversions/:conversionId/reverse, one request each, at
 * 50 in flight: reversals/s and latency. Beside it the physical limit: the same conversion_reversals
 * and movement_reversals rows written with one INSERT … SELECT each into identical tables. Afterwards
 * the books are checked: exactly N reversals, each movement reversed once and whole, every open
 * check emptied, the reconciliation balanced.
 */
import type pg from 'pg';
import type { Api } from './api';
import { type ClaimPhaseOptions, conversionBatchBodies, payingProject, referralProgram, sendBatchesUntilPaid } from './claim';
import { keepAlivePost, type RunFigures, runFixedLoad } from './load';
import { fmt } from './report';

export interface ReversalsResult {
  reversals: number;
  connections: number;
  users: number;
  referred: number;
  affiliates: number;
  /** Paying the conversions first (set-up). */
  payingSeconds: number;
  ours: RunFigures;
  /** Requests not answered 2xx in the measured run, sent again afterwards (a retry of a reversal is harmless). */
  resent: number;
  limitSeconds: number;
  limitRows: { reversals: number; movementReversals: number };
  downstreamSeconds: number;
  downstreamIdle: boolean;
  books: {
    reversals: number;
    movementReversals: number;
    movements: number;
    /** Movements with exactly one reversal, of their whole amount. */
    reversedOnceWhole: number;
    /** Claim checks of the project holding anything (all were open and emptied by the reversals). */
    checksHolding: number;
    reversedEvents: number;
    balanced: boolean;
  };
}

const reversalBody = (n: number) => JSON.stringify({ reversal_id: `bench-refund-${n}`, reason: 'bench: refunded' });
const reversePath = (n: number) => `/api/v1/conversions/rev-${n}/reverse`;

export async function runReversals(options: ClaimPhaseOptions): Promise<ReversalsResult> {
  const { api, db, config, log } = options;
  const { reversals: total, connections, affiliates, users, referredShare } = config.reversals;
  const project = await payingProject(api, options.platformKey, 'bench reversals');
  await api.call('PUT', `/api/v1/projects/${project.id}/payout-terms/trade`, project.keys.admin, {
    currency_id: project.currency.id,
    end_user: { bps: 50 },
    affiliate: { bps: 1_000 },
  });
  log(`reversals: paying ${fmt.int(total)} conversions of ${fmt.int(users)} users, about half referred by ${affiliates} affiliates (not measured)`);
  const referred = await referralProgram(api, project, { affiliates, users, referredShare, namespace: 'rev' });
  const bodies = conversionBatchBodies({ total, users, namespace: 'rev', idPrefix: 'rev' });
  const paying = await sendBatchesUntilPaid(api, db, project, bodies, 4);
  // The payments' events are consumed before the reversals start (the measured phase waits for an idle stack).

  log(`reversals: ${fmt.int(total)} x POST /api/v1/conversions/:conversionId/reverse, ${connections} in flight`);
  const client = keepAlivePost(api.baseUrl, connections);
  const headers = { authorization: `Bearer ${project.keys.service}` };
  let ours: RunFigures & { failed: number[] };
  let resent = 0;
  try {
    ours = await options.around('reversals (gateway)', () =>
      runFixedLoad(total, connections, 'ours: POST .../reverse (HTTP -> gRPC -> SQL)', (n) => client.post(reversePath(n), headers, reversalBody(n))),
    );
    // A request that failed (a 504 on a loaded machine) is sent again, as a client would: the same
    // reversal_id and body take nothing twice (200 when the first attempt had been applied).
    for (const n of ours.failed) {
      for (let attempt = 1; ; attempt += 1) {
        const status = await client.post(reversePath(n), headers, reversalBody(n));
        if (status === 200 || status === 201) break;
        if (attempt >= 3) throw new Error(`reversal ${n} answered ${status} three times after the run`);
      }
      resent += 1;
    }
  } finally {
    client.close();
  }
  if (resent > 0) log(`reversals: ${resent} requests were not answered 2xx in the run and were sent again`);

  // The consumers of claim.conversion.reversed run on after the last reversal: measured apart, and
  // the limit waits for them, so that it has the machine to itself.
  const downstream = await options.around('reversals (downstream catch-up)', options.settle, { settleFirst: false });

  const books = await checkBooks(api, db, project);

  // The physical limit: the same rows, one INSERT … SELECT per table, into tables with the
  // reversals' columns, keys, checks, indexes and foreign keys.
  await db.query('DROP TABLE IF EXISTS claim.bench_movement_reversals, claim.bench_conversion_reversals');
  await db.query('CREATE TABLE claim.bench_conversion_reversals (LIKE claim.conversion_reversals INCLUDING ALL)');
  await db.query(
    `ALTER TABLE claim.bench_conversion_reversals ADD FOREIGN KEY (project_id, conversion_id) REFERENCES claim.conversions (project_id, id)`,
  );
  await db.query('CREATE TABLE claim.bench_movement_reversals (LIKE claim.movement_reversals INCLUDING ALL)');
  await db.query(`ALTER TABLE claim.bench_movement_reversals
    ADD FOREIGN KEY (movement_id) REFERENCES claim.movements (id),
    ADD FOREIGN KEY (claim_check_id) REFERENCES claim.claim_checks (id),
    ADD FOREIGN KEY (project_id, reversal_id) REFERENCES claim.bench_conversion_reversals (project_id, reversal_id)`);
  await db.query('CHECKPOINT');
  const limit = await options.around('reversals (INSERT ... SELECT)', async () => {
    const started = performance.now();
    await db.query('BEGIN');
    const heads = await db.query(
      `INSERT INTO claim.bench_conversion_reversals (project_id, reversal_id, conversion_id, share_bps, reason, volume_usd, revenue_usd, reversed_by, created_at)
       SELECT project_id, reversal_id, conversion_id, share_bps, reason, volume_usd, revenue_usd, reversed_by, created_at
       FROM claim.conversion_reversals WHERE project_id = $1`,
      [project.id],
    );
    const parts = await db.query(
      `INSERT INTO claim.bench_movement_reversals (project_id, reversal_id, movement_id, amount, was, claim_check_id, from_check, to_debt, created_at)
       SELECT project_id, reversal_id, movement_id, amount, was, claim_check_id, from_check, to_debt, created_at
       FROM claim.movement_reversals WHERE project_id = $1`,
      [project.id],
    );
    await db.query('COMMIT');
    return { seconds: (performance.now() - started) / 1000, reversals: heads.rowCount ?? 0, movementReversals: parts.rowCount ?? 0 };
  });
  await db.query('DROP TABLE claim.bench_movement_reversals, claim.bench_conversion_reversals');

  return {
    reversals: total,
    connections,
    users,
    referred: referred.length,
    affiliates,
    payingSeconds: paying.seconds,
    ours,
    resent,
    limitSeconds: limit.seconds,
    limitRows: { reversals: limit.reversals, movementReversals: limit.movementReversals },
    downstreamSeconds: downstream.seconds,
    downstreamIdle: downstream.idle,
    books,
  };
}

/** What the reversals left in the books: counted in SQL, and the reconciliation as the API answers it. */
async function checkBooks(api: Api, db: pg.Client, project: { id: string; keys: { admin: string } }): Promise<ReversalsResult['books']> {
  const counts = (
    await db.query<Omit<ReversalsResult['books'], 'balanced'>>(
      `SELECT (SELECT count(*)::int FROM claim.conversion_reversals WHERE project_id = $1) AS "reversals",
              (SELECT count(*)::int FROM claim.movement_reversals WHERE project_id = $1) AS "movementReversals",
              (SELECT count(*)::int FROM claim.movements WHERE project_id = $1) AS "movements",
              (SELECT count(*)::int FROM claim.movements m
                 JOIN (SELECT movement_id, count(*) AS n, sum(amount) AS total FROM claim.movement_reversals WHERE project_id = $1 GROUP BY movement_id) r
                   ON r.movement_id = m.id
               WHERE m.project_id = $1 AND r.n = 1 AND r.total = m.amount) AS "reversedOnceWhole",
              (SELECT count(*)::int FROM claim.claim_checks WHERE project_id = $1 AND amount <> 0) AS "checksHolding",
              (SELECT count(*)::int FROM claim.outbox WHERE project_id = $1 AND type = 'claim.conversion.reversed') AS "reversedEvents"`,
      [project.id],
    )
  ).rows[0]!;
  const { body } = await api.call<{ balanced: boolean }>('GET', `/api/v1/projects/${project.id}/ledger/reconciliation`, project.keys.admin);
  return { ...counts, balanced: body.balanced };
}
