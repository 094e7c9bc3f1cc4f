import { conversionBody, createCurrency, evmUser, putTerms, settled } from '../claim/claim-fixtures';
import { createSegment, randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';

/**
 * Dynamic audiences end to end. What conditions read reaches the audience service only
 * through the API: conversions paid by the claim service, referrals made with codes, traits pushed by
 * the project. Entries, counts, the user lookup and an affiliate's tier follow.
 */
describe('dynamic audiences', () => {
  let stack: TestStack;
  let project: TestProject;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    stack.clock.set('2026-11-20T12:00:00.000Z');
    const usdc = await createCurrency(stack, project, { name: 'USDC' });
    await putTerms(stack, project, 'trade', { currency_id: usdc.id, affiliate: { bps: 1_000 } });
  });
  afterAll(() => stack.stop());

  const base = () => `/api/v1/projects/${project.id}/audiences`;
  const admin = () => ({ key: project.keys.admin });

  /** The user's conversions as the audience service has counted them (its projection, only read). */
  async function countedConversions(user: string): Promise<number> {
    const { rows } = await stack.db.query(
      `SELECT conversions::int AS n FROM audience.user_metrics WHERE project_id = $1 AND identifier_type = 'evm_address' AND identifier = $2`,
      [project.id, user],
    );
    return rows[0]?.n ?? 0;
  }

  /**
   * A conversion through the API, paid, and counted by the audience service before this returns: its
   * event reaches the audience through the claim service's outbox a moment after the payment, and an
   * evaluation started in between would not see it yet.
   */
  async function convert(user: string, volumeUsd: string, fields: Record<string, unknown> = {}) {
    const before = await countedConversions(user);
    const body = conversionBody({ user: evmUser(user), volume_usd: volumeUsd, ...fields });
    const sent = await stack.api.post('/api/v1/conversions', { key: project.keys.service, body });
    expect(sent.status).toBe(202);
    // processed, or no_terms when nobody referred the user (these terms pay affiliates only): either way its volume counts.
    expect(['processed', 'no_terms']).toContain((await settled(stack, project, body.id)).status);
    await pollUntil(async () => (await countedConversions(user)) === before + 1 || undefined, {
      timeoutMs: 15_000,
      what: `the audience service to count ${user}'s conversion`,
    });
  }

  async function completed(audienceId: string, after?: string) {
    return pollUntil(
      async () => {
        const response = await stack.api.get(`${base()}/${audienceId}/evaluation`, admin());
        const done = response.status === 200 && response.body.status === 'completed' && (!after || response.body.finished_at > after);
        return done ? response.body : undefined;
      },
      { timeoutMs: 15_000, what: 'the evaluation to complete' },
    );
  }

  async function entryIds(audienceId: string) {
    const response = await stack.api.get(`/v1/audience-segments/${audienceId}/entries?page_size=100`, { key: project.keys.service });
    expect(response.status).toBe(200);
    return (response.body.results as Array<{ identifier: string; kind: string; source: string }>)
      .map((entry) => `${entry.identifier}:${entry.kind}:${entry.source}`)
      .sort();
  }

  const waitForEntries = (audienceId: string, expected: string[], what: string, timeoutMs = 15_000) =>
    pollUntil(async () => JSON.stringify(await entryIds(audienceId)) === JSON.stringify([...expected].sort()) || undefined, { timeoutMs, what });
  /** The goal from a trait change to the user's entry (p99 < 2 s; the bench measures the distribution). */
  const TRAIT_TO_ENTRY_MS = 2_000;

  async function createAffiliate(identifier: string, code: string) {
    const created = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
      ...admin(),
      body: { identifier, identifier_type: 'evm_address', name: `Affiliate ${code}`, code },
    });
    expect(created.status).toBe(201);
  }

  /** The affiliate's tiers as the agency shows them (it asks the audience service for each). */
  async function tiersOf(identifier: string) {
    const response = await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${identifier}`, admin());
    expect(response.status).toBe(200);
    return { current: response.body.current_tier?.id ?? null, active: response.body.active_tier?.id ?? null };
  }

  /** The agency reads tiers from its projection of the audience's entry events: it follows an entry change within moments, not with it. */
  async function tiersFollow(identifier: string, expected: { current: string | null; active: string | null }) {
    await pollUntil(async () => JSON.stringify(await tiersOf(identifier)) === JSON.stringify(expected) || undefined, {
      timeoutMs: 10_000,
      what: "the agency's tiers to follow the entries",
    });
  }

  it('adds users whose conversions match within seconds, removes on evaluate those that stopped matching (a window moved on), and leaves static entries alone', async () => {
    const [u1, u2, u3] = [randomEvmAddress(), randomEvmAddress(), randomEvmAddress()];
    const audience = await createSegment(stack, project, { condition: { metric: 'volume_usd', op: 'gte', value: '100', window_days: 7 } });
    expect(await completed(audience.id)).toEqual({
      status: 'completed',
      started_at: expect.any(String),
      finished_at: expect.any(String),
      matched: 0,
      added: 0,
      removed: 0,
    });

    await convert(u1, '150');
    await convert(u2, '99.5');
    await convert(u3, '60');
    await convert(u3, '940');
    await waitForEntries(audience.id, [`${u1}:dynamic:condition`, `${u3}:dynamic:condition`], 'u1 and u3 to match');

    const added = await stack.api.post(`${base()}/${audience.id}/entries`, { ...admin(), body: { identifier: u2, identifier_type: 'evm_address' } });
    expect(added.status).toBe(201);

    // Five days on, u3 trades again; three more and the first conversions (the 20th) are out of the last 7 days (the 22nd to the 28th).
    stack.clock.advance(5 * 86_400_000);
    await convert(u3, '100');
    stack.clock.advance(3 * 86_400_000);
    const first = await completed(audience.id);
    const started = await stack.api.post(`${base()}/${audience.id}/evaluate`, admin());
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ status: expect.stringMatching(/^(queued|active|completed)$/) });
    expect(await completed(audience.id, first.finished_at)).toMatchObject({ matched: 1, added: 0, removed: 1 });
    expect(await entryIds(audience.id)).toEqual([`${u2}:static:dashboard`, `${u3}:dynamic:condition`].sort());
    expect((await stack.api.get(`${base()}/${audience.id}`, admin())).body.entries_count).toBe(2);

    const lookup = await stack.api.get(`/v1/audiences/audience-segments/user?user_identifier=${u3}&user_identifier_type=evm_address`, {
      key: project.keys.service,
    });
    expect(lookup.status).toBe(200);
    expect(lookup.body.results.map((result: { id: string }) => result.id)).toContain(audience.id);
  });

  it('re-evaluates every user when PATCH changes the condition', async () => {
    const whale = randomEvmAddress();
    const anyone = await createSegment(stack, project, { condition: { metric: 'conversions', op: 'gte', value: 1 } });
    const audience = await createSegment(stack, project, { condition: { metric: 'volume_usd', op: 'gte', value: '100000' } });
    await convert(whale, '5000');
    // The catch-all audience shows the audience service has the conversion; the other still has nobody.
    await pollUntil(async () => (await entryIds(anyone.id)).includes(`${whale}:dynamic:condition`) || undefined, {
      timeoutMs: 15_000,
      what: 'the conversion to reach the audience service',
    });
    expect(await entryIds(audience.id)).toEqual([]);

    const first = await completed(audience.id);
    stack.clock.advance(1_000);
    const patched = await stack.api.patch(`${base()}/${audience.id}`, {
      ...admin(),
      body: { condition: { metric: 'volume_usd', op: 'gte', value: '4000' } },
    });
    expect(patched.status).toBe(200);
    expect(await completed(audience.id, first.finished_at)).toMatchObject({ added: 1 });
    expect(await entryIds(audience.id)).toEqual([`${whale}:dynamic:condition`]);
  });

  it('answers 400 AUDIENCE_NOT_DYNAMIC to evaluate a static audience, 404 for its evaluation, and 404 for an unknown audience', async () => {
    const plain = await createSegment(stack, project);
    const evaluate = await stack.api.post(`${base()}/${plain.id}/evaluate`, admin());
    expect(evaluate.status).toBe(400);
    expect(evaluate.body).toMatchObject({ status: 400, code: 'AUDIENCE_NOT_DYNAMIC', details: [] });
    const evaluation = await stack.api.get(`${base()}/${plain.id}/evaluation`, admin());
    expect(evaluation.status).toBe(404);
    expect(evaluation.body.code).toBe('EVALUATION_NOT_FOUND');
    expect((await stack.api.post(`${base()}/00000000-0000-4000-8000-000000000000/evaluate`, admin())).status).toBe(404);
    expect((await stack.api.get(`${base()}/not-an-id/evaluation`, admin())).status).toBe(404);
  });

  it('follows a trait pushed through the API within 2 s: the user enters, then leaves, and its tier follows', async () => {
    const holder = randomEvmAddress();
    await createAffiliate(holder, `holder${Date.now().toString(36)}`);
    const push = async (value: number) => {
      const response = await stack.api.post('/v1/user-traits/batch', {
        key: project.keys.service,
        body: { traits: [{ identifier: holder, identifier_type: 'evm_address', name: 'token_balance', value }] },
      });
      expect(response.status).toBeLessThan(300);
    };
    const gold = await createSegment(stack, project, { condition: { metric: 'trait:token_balance', op: 'gte', value: 1000 }, tier_rank: 2 });
    const silver = await createSegment(stack, project, { condition: { metric: 'trait:token_balance', op: 'gte', value: 10 }, tier_rank: 1 });
    await completed(gold.id);
    await completed(silver.id);
    await push(5_000);
    await waitForEntries(gold.id, [`${holder}:dynamic:condition`], 'the holder to enter gold', TRAIT_TO_ENTRY_MS);
    await tiersFollow(holder, { current: gold.id, active: gold.id });
    expect(await tiersOf(holder)).toEqual({ current: gold.id, active: gold.id });
    await push(50);
    await waitForEntries(gold.id, [], 'the holder to leave gold', TRAIT_TO_ENTRY_MS);
    expect(await entryIds(silver.id)).toEqual([`${holder}:dynamic:condition`]);
    await tiersFollow(holder, { current: silver.id, active: silver.id });
    expect(await tiersOf(holder)).toEqual({ current: silver.id, active: silver.id });
  });

  it('moves an affiliate up the tiers as the volume of the users it referred grows', async () => {
    const alice = randomEvmAddress();
    const code = `alice${Date.now().toString(36)}`;
    await createAffiliate(alice, code);
    const silver = await createSegment(stack, project, { condition: { metric: 'referred_volume_usd', op: 'gte', value: '100' }, tier_rank: 3 });
    const gold = await createSegment(stack, project, { condition: { metric: 'referred_volume_usd', op: 'gte', value: '1000' }, tier_rank: 4 });
    await completed(silver.id);
    await completed(gold.id);
    await tiersFollow(alice, { current: null, active: null });
    expect(await tiersOf(alice)).toEqual({ current: null, active: null });

    await convert(randomEvmAddress(), '150', { referral_code: code });
    await waitForEntries(silver.id, [`${alice}:dynamic:condition`], 'Alice to reach silver');
    expect(await entryIds(gold.id)).toEqual([]);
    await tiersFollow(alice, { current: silver.id, active: silver.id });
    expect(await tiersOf(alice)).toEqual({ current: silver.id, active: silver.id });

    await convert(randomEvmAddress(), '850', { referral_code: code });
    await waitForEntries(gold.id, [`${alice}:dynamic:condition`], 'Alice to reach gold');
    await tiersFollow(alice, { current: gold.id, active: gold.id });
    expect(await tiersOf(alice)).toEqual({ current: gold.id, active: gold.id });
  });
});
