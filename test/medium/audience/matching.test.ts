import { randomUUID } from 'node:crypto';
import type { AudienceDomain } from '../../../services/audience/composition';
import type { AudienceDatabase } from '../../../services/audience/database';
import { conditionInputs } from '../../helpers/condition-inputs';
import type { DomainHarness } from '../../helpers/domain';
import { startAudienceDomain } from '../../helpers/audience-domain';
import { evmAddress } from '../../helpers/evm-addresses';

const currency = '5f0c7f2e-8d7e-4d0a-9a43-0a4c2b1e9f11';
const user = (n: number) => ({ identifier: evmAddress(n) });

/**
 * Dynamic matching on the domain and its tables: full evaluations (one set-based
 * statement), incremental matching of a few users, and what neither may touch. The clock's today
 * is 2026-11-21 (UTC).
 */
describe('dynamic matching (domain)', () => {
  let harness: DomainHarness<AudienceDomain, AudienceDatabase>;
  beforeAll(async () => {
    harness = await startAudienceDomain();
  });
  afterAll(() => harness.stop());

  const evaluations = () => harness.domain.evaluations;

  /** A dynamic segment, evaluated (its request run as the worker would); returns it with the outcome. */
  async function dynamic(projectId: string, condition: unknown, more: { tierRank?: number } = {}) {
    const segment = await harness.domain.segments.create(projectId, {
      name: `Dynamic ${randomUUID()}`,
      conditionJson: JSON.stringify(condition),
      ...more,
    });
    const evaluation = await evaluations().get(projectId, segment.id);
    expect(evaluation).toMatchObject({ status: 'queued', requested: 1, matched: null });
    await evaluations().run(segment.id, evaluation.requested);
    return segment;
  }

  async function evaluateAgain(projectId: string, segmentId: string) {
    const { requested } = await evaluations().start(projectId, segmentId);
    await evaluations().run(segmentId, requested);
    return evaluations().get(projectId, segmentId);
  }

  const entriesOf = async (segmentId: string) =>
    (await harness.sql.query('SELECT identifier, kind, source FROM audience.entries WHERE segment_id = $1 ORDER BY identifier', [segmentId]))
      .rows as Array<{ identifier: string; kind: string; source: string }>;
  const idsOf = async (segmentId: string) => (await entriesOf(segmentId)).map((entry) => entry.identifier);
  const countOf = async (segmentId: string) =>
    Number((await harness.sql.query('SELECT entries_count FROM audience.segments WHERE id = $1', [segmentId])).rows[0].entries_count);
  /** Users named by the segment's entry events, per type, in outbox order (each event pending relay: nothing relays here). */
  async function eventUsers(segmentId: string) {
    const { rows } = await harness.sql.query(
      `SELECT o.type, o.payload, p.seq IS NOT NULL AS pending FROM audience.outbox o LEFT JOIN audience.outbox_pending p ON p.seq = o.seq
       WHERE o.payload->>'segment_id' = $1 AND o.type IN ('audience.entry_added', 'audience.entry_removed') ORDER BY o.seq`,
      [segmentId],
    );
    const out: Record<string, string[]> = { 'audience.entry_added': [], 'audience.entry_removed': [] };
    for (const row of rows) {
      expect(row.payload.kind).toBe('dynamic');
      // An event left out of outbox_pending is never relayed: the agency's tiers would not follow.
      expect(row.pending).toBe(true);
      out[row.type]!.push(...row.payload.users.map((u: { identifier: string }) => u.identifier));
    }
    for (const list of Object.values(out)) list.sort();
    return out;
  }

  it('adds the users a condition matches as dynamic entries, counts them, records the evaluation and tells other services', async () => {
    const projectId = randomUUID();
    const inputs = conditionInputs(harness.db, projectId);
    await inputs.metrics(user(1), { volume_usd: '100' });
    await inputs.metrics(user(2), { volume_usd: '99.99' });
    await inputs.metrics(user(3), { volume_usd: '100000.5' });
    await conditionInputs(harness.db, randomUUID()).metrics(user(4), { volume_usd: '500' });
    harness.clock.advance(1_000);
    const segment = await dynamic(projectId, { metric: 'volume_usd', op: 'gte', value: '100' });
    expect(await entriesOf(segment.id)).toEqual([
      { identifier: evmAddress(1), kind: 'dynamic', source: 'condition' },
      { identifier: evmAddress(3), kind: 'dynamic', source: 'condition' },
    ]);
    expect(await countOf(segment.id)).toBe(2);
    expect(await evaluations().get(projectId, segment.id)).toMatchObject({
      status: 'completed',
      matched: 2,
      added: 2,
      removed: 0,
      startedAt: harness.clock.now(),
      finishedAt: harness.clock.now(),
    });
    expect(await eventUsers(segment.id)).toEqual({ 'audience.entry_added': [evmAddress(1), evmAddress(3)], 'audience.entry_removed': [] });
  });

  it('removes users that stop matching, keeps those that still do, and changes nothing when run again', async () => {
    const projectId = randomUUID();
    const inputs = conditionInputs(harness.db, projectId);
    for (const n of [1, 2, 3]) await inputs.metrics(user(n), { conversions: 5 });
    const segment = await dynamic(projectId, { metric: 'conversions', op: 'gt', value: 2 });
    expect(await idsOf(segment.id)).toEqual([evmAddress(1), evmAddress(2), evmAddress(3)]);
    await inputs.metrics(user(2), { conversions: 2 });
    await inputs.metrics(user(4), { conversions: 3 });
    expect(await evaluateAgain(projectId, segment.id)).toMatchObject({ status: 'completed', matched: 3, added: 1, removed: 1 });
    expect(await idsOf(segment.id)).toEqual([evmAddress(1), evmAddress(3), evmAddress(4)]);
    expect(await countOf(segment.id)).toBe(3);
    expect(await evaluateAgain(projectId, segment.id)).toMatchObject({ matched: 3, added: 0, removed: 0 });
    expect(await eventUsers(segment.id)).toEqual({
      'audience.entry_added': [evmAddress(1), evmAddress(2), evmAddress(3), evmAddress(4)],
      'audience.entry_removed': [evmAddress(2)],
    });
  });

  it('never touches static entries: a matching user stays static, a static user that does not match stays in', async () => {
    const projectId = randomUUID();
    const inputs = conditionInputs(harness.db, projectId);
    await inputs.metrics(user(1), { referred_users: 10 });
    await inputs.metrics(user(2), { referred_users: 0 });
    await inputs.metrics(user(3), { referred_users: 10 });
    const segment = await harness.domain.segments.create(projectId, {
      name: 'Referrers',
      conditionJson: JSON.stringify({ metric: 'referred_users', op: 'gte', value: 5 }),
    });
    await harness.domain.entries.add(projectId, segment.id, evmAddress(1), 'evm_address');
    await harness.domain.entries.add(projectId, segment.id, evmAddress(2), 'evm_address');
    await evaluations().run(segment.id, 1);
    expect(await entriesOf(segment.id)).toEqual([
      { identifier: evmAddress(1), kind: 'static', source: 'dashboard' },
      { identifier: evmAddress(2), kind: 'static', source: 'dashboard' },
      { identifier: evmAddress(3), kind: 'dynamic', source: 'condition' },
    ]);
    expect(await evaluations().get(projectId, segment.id)).toMatchObject({ matched: 2, added: 1, removed: 0 });
    expect(await countOf(segment.id)).toBe(3);
    // Nobody matches any more: only the dynamic entry leaves.
    await inputs.metrics(user(1), { referred_users: 0 });
    await inputs.metrics(user(3), { referred_users: 0 });
    expect(await evaluateAgain(projectId, segment.id)).toMatchObject({ matched: 0, added: 0, removed: 1 });
    expect(await idsOf(segment.id)).toEqual([evmAddress(1), evmAddress(2)]);
    expect(await countOf(segment.id)).toBe(2);
  });

  it('gives users without figures 0 of each: lt and eq 0 match a user known only by a trait', async () => {
    const projectId = randomUUID();
    const inputs = conditionInputs(harness.db, projectId);
    await inputs.metrics(user(1), { volume_usd: '50' });
    await inputs.metrics(user(2), { volume_usd: '150' });
    await inputs.trait(user(3), 'country', 'FR');
    await inputs.earningDay(user(5), currency, '2026-11-20', '7');
    const below = await dynamic(projectId, { metric: 'volume_usd', op: 'lt', value: 100 });
    expect(await idsOf(below.id)).toEqual([evmAddress(1), evmAddress(3), evmAddress(5)]);
    const none = await dynamic(projectId, { metric: 'conversions', op: 'eq', value: 0 });
    expect(await idsOf(none.id)).toEqual([evmAddress(1), evmAddress(2), evmAddress(3), evmAddress(5)]);
  });

  it('compares traits: strings, booleans, numbers ordered, lists; a missing trait matches nothing (neq neither)', async () => {
    const projectId = randomUUID();
    const inputs = conditionInputs(harness.db, projectId);
    await inputs.trait(user(1), 'country', 'FR');
    await inputs.trait(user(1), 'balance', 1500.5);
    await inputs.trait(user(1), 'kyc', true);
    await inputs.trait(user(2), 'country', 'US');
    await inputs.trait(user(2), 'balance', '2000');
    await inputs.trait(user(2), 'kyc', false);
    await inputs.trait(user(3), 'balance', 10);
    const ids = async (condition: unknown) => idsOf((await dynamic(projectId, condition)).id);
    expect(await ids({ metric: 'trait:country', op: 'eq', value: 'FR' })).toEqual([evmAddress(1)]);
    expect(await ids({ metric: 'trait:country', op: 'neq', value: 'FR' })).toEqual([evmAddress(2)]);
    expect(await ids({ metric: 'trait:country', op: 'in', value: ['FR', 'US', 'DE'] })).toEqual([evmAddress(1), evmAddress(2)]);
    expect(await ids({ metric: 'trait:kyc', op: 'eq', value: true })).toEqual([evmAddress(1)]);
    // The string "2000" is no number: ordering skips it.
    expect(await ids({ metric: 'trait:balance', op: 'gte', value: 1000 })).toEqual([evmAddress(1)]);
    expect(await ids({ metric: 'trait:balance', op: 'eq', value: 10.0 })).toEqual([evmAddress(3)]);
    expect(await ids({ metric: 'trait:balance', op: 'eq', value: '2000' })).toEqual([evmAddress(2)]);
  });

  it('reads windows, conversion names and earnings of one currency from the per-day figures', async () => {
    const projectId = randomUUID();
    const inputs = conditionInputs(harness.db, projectId);
    for (const n of [1, 2, 3]) await inputs.metrics(user(n), { conversions: 100 });
    await inputs.conversionDay(user(1), 'swap', '2026-11-21', { conversions: 2 });
    await inputs.conversionDay(user(1), 'swap', '2026-11-15', { conversions: 1 });
    await inputs.conversionDay(user(2), 'swap', '2026-11-14', { conversions: 5 });
    await inputs.conversionDay(user(2), 'mint', '2026-11-20', { conversions: 3 });
    await inputs.referralDay(user(3), '2026-11-01', { referred_users: 4, referred_volume_usd: '10.5' });
    await inputs.earningDay(user(1), currency, '2026-11-21', '1000000000000000000000');
    await inputs.earningDay(user(2), currency, '2026-10-01', '999999999999999999999');
    await inputs.earningDay(user(2), currency, '2026-11-20', '1');
    await inputs.earningDay(user(3), randomUUID(), '2026-11-20', '5000000000000000000000');
    const ids = async (condition: unknown) => idsOf((await dynamic(projectId, condition)).id);
    // The last 7 days are 2026-11-15 to 2026-11-21.
    expect(await ids({ metric: 'conversions', op: 'gte', value: 3, window_days: 7, conversion_name: 'swap' })).toEqual([evmAddress(1)]);
    expect(await ids({ metric: 'conversions', op: 'gte', value: 3, window_days: 7 })).toEqual([evmAddress(1), evmAddress(2)]);
    expect(await ids({ metric: 'conversions', op: 'gte', value: 5, conversion_name: 'swap' })).toEqual([evmAddress(2)]);
    expect(await ids({ metric: 'referred_volume_usd', op: 'gt', value: '10', window_days: 30 })).toEqual([evmAddress(3)]);
    expect(await ids({ metric: 'earnings', op: 'gte', value: '1000000000000000000000', currency_id: currency })).toEqual([
      evmAddress(1),
      evmAddress(2),
    ]);
    expect(await ids({ metric: 'earnings', op: 'gte', value: '1000000000000000000000', currency_id: currency, window_days: 30 })).toEqual([
      evmAddress(1),
    ]);
  });

  it('combines comparisons with nested all and any', async () => {
    const projectId = randomUUID();
    const inputs = conditionInputs(harness.db, projectId);
    await inputs.metrics(user(1), { volume_usd: '500', conversions: 1 });
    await inputs.metrics(user(2), { volume_usd: '500', conversions: 9 });
    await inputs.metrics(user(3), { volume_usd: '5', conversions: 9 });
    await inputs.trait(user(1), 'vip', true);
    await inputs.trait(user(3), 'vip', true);
    const segment = await dynamic(projectId, {
      all: [
        { metric: 'volume_usd', op: 'gte', value: 100 },
        {
          any: [
            { metric: 'trait:vip', op: 'eq', value: true },
            { metric: 'conversions', op: 'gt', value: 5 },
          ],
        },
      ],
    });
    expect(await idsOf(segment.id)).toEqual([evmAddress(1), evmAddress(2)]);
    const either = await dynamic(projectId, {
      any: [
        {
          all: [
            { metric: 'trait:vip', op: 'eq', value: true },
            { metric: 'volume_usd', op: 'lt', value: 10 },
          ],
        },
        { metric: 'conversions', op: 'in', value: [1] },
      ],
    });
    expect(await idsOf(either.id)).toEqual([evmAddress(1), evmAddress(3)]);
  });

  it('re-evaluates on a condition change; a job of an older request steps aside; clearing the condition removes the dynamic entries', async () => {
    const projectId = randomUUID();
    const inputs = conditionInputs(harness.db, projectId);
    await inputs.metrics(user(1), { conversions: 1 });
    await inputs.metrics(user(2), { conversions: 10 });
    const segment = await dynamic(projectId, { metric: 'conversions', op: 'gte', value: 1 });
    await harness.domain.entries.add(projectId, segment.id, evmAddress(9), 'evm_address');
    await harness.domain.segments.update(projectId, segment.id, ['condition_json'], {
      conditionJson: JSON.stringify({ metric: 'conversions', op: 'gte', value: 5 }),
    });
    expect(await evaluations().get(projectId, segment.id)).toMatchObject({ status: 'queued', requested: 2, startedAt: null, matched: null });
    expect(await evaluations().run(segment.id, 1)).toBeUndefined();
    expect(await idsOf(segment.id)).toEqual([evmAddress(1), evmAddress(2), evmAddress(9)]);
    expect(await evaluations().run(segment.id, 2)).toEqual({ matched: 1, added: 0, removed: 1 });
    expect(await evaluations().run(segment.id, 2)).toBeUndefined();
    expect(await idsOf(segment.id)).toEqual([evmAddress(2), evmAddress(9)]);
    // A change of the name alone starts nothing.
    await harness.domain.segments.update(projectId, segment.id, ['name'], { name: 'Renamed' });
    expect(await evaluations().get(projectId, segment.id)).toMatchObject({ requested: 2, status: 'completed' });

    await harness.domain.segments.update(projectId, segment.id, ['condition_json'], {});
    await evaluations().run(segment.id, 3);
    expect(await entriesOf(segment.id)).toEqual([{ identifier: evmAddress(9), kind: 'static', source: 'dashboard' }]);
    expect(await countOf(segment.id)).toBe(1);
    await expect(evaluations().start(projectId, segment.id)).rejects.toMatchObject({ code: 'AUDIENCE_NOT_DYNAMIC', kind: 'failed_precondition' });
  });

  it('answers 404 for the evaluation of a static segment, of an unknown one and of another project’s', async () => {
    const projectId = randomUUID();
    const plain = await harness.domain.segments.create(projectId, { name: 'Static' });
    await expect(evaluations().get(projectId, plain.id)).rejects.toMatchObject({ code: 'EVALUATION_NOT_FOUND' });
    await expect(evaluations().get(projectId, randomUUID())).rejects.toMatchObject({ kind: 'not_found' });
    await expect(evaluations().get(projectId, 'not-a-uuid')).rejects.toMatchObject({ kind: 'not_found' });
    const other = await dynamic(randomUUID(), { metric: 'conversions', op: 'gt', value: 0 });
    await expect(evaluations().get(projectId, other.id)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(evaluations().start(projectId, other.id)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('matches only the users pending re-matching (incremental), against every dynamic segment of their project, and takes them off the table', async () => {
    const projectId = randomUUID();
    const inputs = conditionInputs(harness.db, projectId);
    const big = await dynamic(projectId, { metric: 'volume_usd', op: 'gte', value: 100 });
    const fr = await dynamic(projectId, { metric: 'trait:country', op: 'eq', value: 'FR' });
    const plain = await harness.domain.segments.create(projectId, { name: 'Static' });
    await inputs.metrics(user(1), { volume_usd: '150' });
    await inputs.metrics(user(2), { volume_usd: '150' });
    await inputs.trait(user(1), 'country', 'FR');
    await inputs.pending(user(1));
    expect(await evaluations().matchPending(projectId, 10_000)).toEqual({ users: 1, changed: 2 });
    expect(await evaluations().matchPending(projectId, 10_000)).toBeUndefined();
    expect(await idsOf(big.id)).toEqual([evmAddress(1)]);
    expect(await idsOf(fr.id)).toEqual([evmAddress(1)]);
    expect(await idsOf(plain.id)).toEqual([]);
    await inputs.metrics(user(1), { volume_usd: '10' });
    await inputs.trait(user(1), 'country', 'DE');
    await inputs.pending(user(1));
    await inputs.pending(user(2));
    expect(await evaluations().matchPending(projectId, 10_000)).toEqual({ users: 2, changed: 3 });
    expect(Number((await harness.sql.query('SELECT count(*) FROM audience.pending_matches WHERE project_id = $1', [projectId])).rows[0].count)).toBe(
      0,
    );
    expect(await idsOf(big.id)).toEqual([evmAddress(2)]);
    expect(await idsOf(fr.id)).toEqual([]);
    expect(await countOf(big.id)).toBe(1);
    expect(await countOf(fr.id)).toBe(0);
    expect(await eventUsers(fr.id)).toEqual({ 'audience.entry_added': [evmAddress(1)], 'audience.entry_removed': [evmAddress(1)] });
  });

  it('writes events of at most 1,000 users each for a large evaluation', async () => {
    const projectId = randomUUID();
    await harness.sql.query(
      `INSERT INTO audience.user_metrics (project_id, identifier_type, identifier, conversions, updated_at)
       SELECT $1, 'evm_address', '0x' || lpad(to_hex(n), 40, '0'), 1, now() FROM generate_series(1, 2500) n`,
      [projectId],
    );
    const segment = await dynamic(projectId, { metric: 'conversions', op: 'gte', value: 1 });
    expect(await countOf(segment.id)).toBe(2500);
    const { rows } = await harness.sql.query(
      `SELECT jsonb_array_length(payload->'users') AS n FROM audience.outbox WHERE payload->>'segment_id' = $1 ORDER BY n DESC`,
      [segment.id],
    );
    expect(rows.map((row) => row.n)).toEqual([1000, 1000, 500]);
    expect(new Set((await eventUsers(segment.id))['audience.entry_added']).size).toBe(2500);
  });
});
