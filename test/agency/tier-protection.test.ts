import { randomUUID } from 'node:crypto';
import { createSegment, randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { conversionBody, createCurrency, putTerms, settled } from '../claim/claim-fixtures';
import { audienceEventsProjected } from '../helpers/agency-projections';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';

const START = '2026-11-21T12:00:00.000Z';
const DAY = 86_400_000;
const at = (days: number, ms = 0) => new Date(Date.parse(START) + days * DAY + ms).toISOString();

/**
 * Tier protection over HTTP, on the stack's test clock: the affiliate body's current_tier,
 * active_tier and tier_protection a day before, on and after the end; bodies, errors and roles.
 * The arithmetic's many cases are on the domain (test/medium/agency/tier-protection.test.ts).
 */
describe('tier protection over HTTP', () => {
  let stack: TestStack;
  let project: TestProject;
  let tiers: { bronze: { id: string }; silver: { id: string }; gold: { id: string } };
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    tiers = {
      bronze: await createSegment(stack, project, { name: 'Bronze', tier_rank: 1 }),
      silver: await createSegment(stack, project, { name: 'Silver', tier_rank: 2 }),
      gold: await createSegment(stack, project, { name: 'Gold', tier_rank: 3 }),
    };
    // The agency answers tiers from its projection of the audience's events.
    await audienceEventsProjected(stack);
  });
  afterAll(() => stack.stop());
  afterEach(() => stack.clock.set(START));

  const admin = () => ({ key: project.keys.admin });
  const affiliatePath = (identifier: string) => `/api/v1/projects/${project.id}/affiliates/${identifier}`;
  const protect = (identifier: string, body: unknown, key = project.keys.admin) =>
    stack.api.request('PUT', `${affiliatePath(identifier)}/tier-protection`, { key, body });
  /** An affiliate in the silver tier. */
  async function silverAffiliate(): Promise<string> {
    const identifier = randomEvmAddress();
    expect(
      (
        await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
          ...admin(),
          body: { identifier, identifier_type: 'evm_address', name: 'Tiered' },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await stack.api.post(`/api/v1/projects/${project.id}/audiences/${tiers.silver.id}/entries`, {
          ...admin(),
          body: { identifier, identifier_type: 'evm_address' },
        })
      ).status,
    ).toBe(201);
    await audienceEventsProjected(stack);
    return identifier;
  }
  const tierOf = (rank: number) => {
    const [name, tier] = Object.entries(tiers)[rank - 1]!;
    return { id: tier.id, name: name[0]!.toUpperCase() + name.slice(1), rank };
  };

  it('shows the protected tier as active until the end: a day before, on the end and after', async () => {
    const identifier = await silverAffiliate();
    const set = await protect(identifier, { tier_id: tiers.gold.id, protection_days: 30 });
    const protection = { tier_id: tiers.gold.id, expires_at: at(30), days_remaining: 30 };
    expect(set).toMatchObject({ status: 200, body: { identifier, current_tier: tierOf(2), active_tier: tierOf(3), tier_protection: protection } });

    stack.clock.set(at(29));
    expect((await stack.api.get(affiliatePath(identifier), admin())).body).toMatchObject({
      current_tier: tierOf(2),
      active_tier: tierOf(3),
      tier_protection: { ...protection, days_remaining: 1 },
    });
    stack.clock.set(at(30));
    expect((await stack.api.get(affiliatePath(identifier), admin())).body).toMatchObject({
      current_tier: tierOf(2),
      active_tier: tierOf(2),
      tier_protection: null,
    });
    stack.clock.set(at(31));
    expect((await stack.api.get(affiliatePath(identifier), admin())).body).toMatchObject({
      current_tier: tierOf(2),
      active_tier: tierOf(2),
      tier_protection: null,
    });
  });

  it('shows the tiers of a whole page of the affiliate list, and the SDK’s current_tier', async () => {
    const identifier = await silverAffiliate();
    await protect(identifier, { tier_id: tiers.gold.id, expires_at: at(2) });
    const list = await stack.api.get(`/api/v1/projects/${project.id}/affiliates?q=${identifier}`, { key: project.keys.readOnly });
    expect(list.body.results).toEqual([
      expect.objectContaining({
        identifier,
        current_tier: tierOf(2),
        active_tier: tierOf(3),
        tier_protection: { tier_id: tiers.gold.id, expires_at: at(2), days_remaining: 2 },
      }),
    ]);
    // The SDK's AffiliateCodeWithStats tier carries a slug: the tier's name in lower case (docs/affiliates.md).
    expect((await stack.api.get(`/api/v1/affiliates/${identifier}`, { key: project.keys.service })).body.current_tier).toEqual({
      ...tierOf(2),
      slug: 'silver',
    });
  });

  it('ends a protection with DELETE (200, the affiliate back at its current tier), then 404 TIER_PROTECTION_NOT_FOUND', async () => {
    const identifier = await silverAffiliate();
    await protect(identifier, { tier_id: tiers.gold.id, protection_days: 5 });
    const ended = await stack.api.delete(`${affiliatePath(identifier)}/tier-protection`, admin());
    expect(ended).toMatchObject({ status: 200, body: { identifier, active_tier: tierOf(2), tier_protection: null } });
    expect(await stack.api.delete(`${affiliatePath(identifier)}/tier-protection`, admin())).toMatchObject({
      status: 404,
      body: { code: 'TIER_PROTECTION_NOT_FOUND' },
    });
  });

  it('answers 400 for a bad body, 404 for an unknown tier or affiliate, 400 NOT_A_TIER, and 403 to other roles', async () => {
    const identifier = await silverAffiliate();
    for (const body of [
      { tier_id: tiers.gold.id },
      { tier_id: tiers.gold.id, protection_days: 0 },
      { tier_id: tiers.gold.id, protection_days: 366 },
      { tier_id: tiers.gold.id, protection_days: 3, expires_at: at(3) },
      { tier_id: tiers.gold.id, expires_at: at(-1) },
      { tier_id: tiers.gold.id, expires_at: 'next week' },
      { tier_id: tiers.gold.id, protection_days: 3, rank: 1 },
    ]) {
      expect(await protect(identifier, body)).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    }
    expect(await protect(identifier, { tier_id: randomUUID(), protection_days: 3 })).toMatchObject({ status: 404, body: { code: 'TIER_NOT_FOUND' } });
    const plain = await createSegment(stack, project);
    expect(await protect(identifier, { tier_id: plain.id, protection_days: 3 })).toMatchObject({ status: 400, body: { code: 'NOT_A_TIER' } });
    expect(await protect(randomEvmAddress(), { tier_id: tiers.gold.id, protection_days: 3 })).toMatchObject({
      status: 404,
      body: { code: 'AFFILIATE_NOT_FOUND' },
    });
    for (const key of [project.keys.readOnly, project.keys.service]) {
      expect(await protect(identifier, { tier_id: tiers.gold.id, protection_days: 3 }, key)).toMatchObject({ status: 403 });
      expect(await stack.api.delete(`${affiliatePath(identifier)}/tier-protection`, { key })).toMatchObject({ status: 403 });
    }
    expect((await stack.api.get(affiliatePath(identifier), admin())).body.tier_protection).toBeNull();
  });

  it('pays a conversion at the tier’s reward once the affiliate has entered the tier segment (the agency’s projection, no sleep)', async () => {
    const currency = await createCurrency(stack, project);
    await putTerms(stack, project, 'tiered-trade', {
      currency_id: currency.id,
      affiliate: { bps: 1_000 },
      tiers: [{ audience_id: tiers.gold.id, affiliate: { bps: 2_000 } }],
    });
    const identifier = randomEvmAddress();
    const code = `t${randomUUID().slice(0, 8)}`;
    expect(
      (
        await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
          ...admin(),
          body: { identifier, identifier_type: 'evm_address', name: 'Rising', code },
        })
      ).status,
    ).toBe(201);
    const user = randomEvmAddress();
    expect(
      (
        await stack.api.post('/api/v1/referrals', {
          key: project.keys.service,
          body: { user_identifier: user, user_identifier_type: 'evm_address', code },
        })
      ).status,
    ).toBe(201);
    const pay = async () => {
      const body = conversionBody({ name: 'tiered-trade', user: { identifier: user, identifier_type: 'evm_address' }, reward_base: '10000' });
      expect((await stack.api.post('/api/v1/conversions', { key: project.keys.service, body })).status).toBe(202);
      const paid = await settled(stack, project, body.id);
      return {
        tier: paid.attribution.tier_id,
        affiliate: paid.movements.find((movement: { kind: string }) => movement.kind === 'affiliate_payout')?.amount,
      };
    };
    expect(await pay()).toEqual({ tier: null, affiliate: '1000' });

    expect(
      (
        await stack.api.post(`/api/v1/projects/${project.id}/audiences/${tiers.gold.id}/entries`, {
          ...admin(),
          body: { identifier, identifier_type: 'evm_address' },
        })
      ).status,
    ).toBe(201);
    // What a client sees once the agency has the entry: the affiliate's body names the tier it is paid at.
    await pollUntil(async () => (await stack.api.get(affiliatePath(identifier), admin())).body.active_tier?.id === tiers.gold.id, {
      timeoutMs: 15_000,
      what: 'the affiliate body to show the gold tier',
    });
    expect(await pay()).toEqual({ tier: tiers.gold.id, affiliate: '2000' });
  });
});
