import { conversionBody, createCurrency, evmUser, putTerms } from '../claim/claim-fixtures';
import type { ServiceProcess } from '../helpers/faults/service-process';
import { useFaultStack } from '../helpers/faults/use-fault-stack';
import { createProject, createSegment, randomEvmAddress, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';

/**
 * Long enough that the kill certainly lands inside the window (it follows the change by tens of
 * milliseconds), short enough that the restarted process (1 to 2 s to start) finds the users due
 * or nearly: each test waits about this long.
 */
const DEBOUNCE_MS = 2_500;

/**
 * Incremental matching through the audience process dying (SIGKILL) inside the
 * debounce window, after a user's inputs changed and before its match: the users to re-match are
 * rows written with the change (pending_matches), so the restarted process matches them. Afterwards
 * the user is in the audience exactly once, counted once, announced once, and nothing is left pending.
 */
describe('incremental matching through the audience process dying inside the debounce window', () => {
  const stack = useFaultStack({ services: ['audience', 'agency', 'claim'], serviceEnv: { MATCHING_DEBOUNCE_MS: String(DEBOUNCE_MS) } });
  let audience: ServiceProcess;
  let project: TestProject;
  beforeAll(async () => {
    audience = stack.service('audience');
    project = await createProject(stack.gateway);
    const currency = await createCurrency(stack.gateway, project);
    await putTerms(stack.gateway, project, 'trade', { currency_id: currency.id, affiliate: { bps: 1_000 } });
  });

  const count = async (query: string, params: unknown[]) => Number((await stack.db.query(query, params)).rows[0].n);
  const pendingOf = async () =>
    (await stack.db.query('SELECT identifier FROM audience.pending_matches WHERE project_id = $1 ORDER BY identifier', [project.id])).rows.map(
      (row) => row.identifier as string,
    );

  /** A dynamic audience, its first evaluation done (nobody matches yet). */
  async function dynamicAudience(condition: Record<string, unknown>) {
    const segment = await createSegment(stack.gateway, project, { condition });
    await pollUntil(
      async () =>
        (await stack.db.query("SELECT 1 FROM audience.segment_evaluations WHERE segment_id = $1 AND status = 'completed'", [segment.id])).rowCount ===
          1 || undefined,
      { timeoutMs: 30_000, intervalMs: 50, what: 'the first evaluation to complete' },
    );
    return segment;
  }

  /** Exactly the one user in the audience, as a dynamic entry, counted and announced once; nobody pending. */
  async function expectOnlyEntry(segmentId: string, identifier: string) {
    const { rows } = await stack.db.query('SELECT identifier, kind, source FROM audience.entries WHERE segment_id = $1', [segmentId]);
    expect(rows).toEqual([{ identifier, kind: 'dynamic', source: 'condition' }]);
    expect(await count('SELECT entries_count AS n FROM audience.segments WHERE id = $1', [segmentId])).toBe(1);
    const announced = await stack.db.query(
      `SELECT u->>'identifier' AS identifier FROM audience.outbox o, jsonb_array_elements(o.payload->'users') u
       WHERE o.type = 'audience.entry_added' AND o.payload->>'segment_id' = $1`,
      [segmentId],
    );
    expect(announced.rows).toEqual([{ identifier }]);
    expect(await pendingOf()).toEqual([]);
  }

  /** Kills the audience while `identifier` waits to be matched, checks it did wait, restarts, and waits for its entry. */
  async function killInsideWindowThenRestart(segmentId: string, identifier: string) {
    await audience.kill();
    // Inside the window: recorded, not matched.
    expect(await pendingOf()).toEqual([identifier]);
    expect(await count('SELECT count(*) AS n FROM audience.entries WHERE segment_id = $1', [segmentId])).toBe(0);
    await audience.restart();
    await pollUntil(async () => (await count('SELECT count(*) AS n FROM audience.entries WHERE segment_id = $1', [segmentId])) > 0 || undefined, {
      timeoutMs: 30_000,
      intervalMs: 50,
      what: 'the restarted audience to match the pending user',
    });
  }

  it('matches a user whose trait was accepted just before the process was killed, once restarted', async () => {
    const segment = await dynamicAudience({ metric: 'trait:vip', op: 'eq', value: true });
    const holder = randomEvmAddress();
    const pushed = await stack.gateway.api.post('/v1/user-traits/batch', {
      key: project.keys.service,
      body: { traits: [{ identifier: holder, identifier_type: 'evm_address', name: 'vip', value: true }] },
    });
    expect(pushed.status).toBe(200);
    await killInsideWindowThenRestart(segment.id, holder);
    await expectOnlyEntry(segment.id, holder);
  }, 120_000);

  it('matches a user whose conversion the consumer applied just before the process was killed, once restarted', async () => {
    const segment = await dynamicAudience({ metric: 'volume_usd', op: 'gte', value: '100' });
    const buyer = randomEvmAddress();
    const sent = await stack.gateway.api.post('/api/v1/conversions', {
      key: project.keys.service,
      body: conversionBody({ user: evmUser(buyer), volume_usd: '150' }),
    });
    expect(sent.status).toBe(202);
    // The consumer's commit: the metric and the pending row together.
    await pollUntil(
      async () =>
        (await count('SELECT count(*) AS n FROM audience.user_metrics WHERE project_id = $1 AND identifier = $2', [project.id, buyer])) === 1 ||
        undefined,
      { timeoutMs: 30_000, intervalMs: 10, what: 'the conversion event applied by the audience' },
    );
    await killInsideWindowThenRestart(segment.id, buyer);
    await expectOnlyEntry(segment.id, buyer);
  }, 120_000);

  it('leaves a user pending at shutdown (SIGTERM inside the window) for the next process, which matches it once', async () => {
    const segment = await dynamicAudience({ metric: 'trait:gold', op: 'eq', value: true });
    const holder = randomEvmAddress();
    const pushed = await stack.gateway.api.post('/v1/user-traits/batch', {
      key: project.keys.service,
      body: { traits: [{ identifier: holder, identifier_type: 'evm_address', name: 'gold', value: true }] },
    });
    expect(pushed.status).toBe(200);
    const stopped = await audience.terminate(20_000);
    expect(stopped).toMatchObject({ code: 0 });
    expect(await pendingOf()).toEqual([holder]);
    expect(await count('SELECT count(*) AS n FROM audience.entries WHERE segment_id = $1', [segment.id])).toBe(0);
    await audience.restart();
    await pollUntil(async () => (await count('SELECT count(*) AS n FROM audience.entries WHERE segment_id = $1', [segment.id])) > 0 || undefined, {
      timeoutMs: 30_000,
      intervalMs: 50,
      what: 'the next process to match the pending user',
    });
    await expectOnlyEntry(segment.id, holder);
  }, 120_000);
});
