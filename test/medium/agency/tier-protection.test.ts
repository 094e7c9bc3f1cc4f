import { randomBytes, randomUUID } from 'node:crypto';
import type { AffiliateRecord } from '../../../services/agency/repositories/affiliate-record';
import { type AgencyHarness, startAgencyDomain } from '../../helpers/agency-domain';
import { ADMIN, newAffiliate, newProject, newUser, userOf } from './program-fixtures';

const START = '2026-11-21T12:00:00.000Z';
const DAY = 86_400_000;
const at = (days: number, ms = 0) => new Date(Date.parse(START) + days * DAY + ms);

/**
 * Tier protection (§2.9, §8.2): the active tier is the higher of the current and the protected
 * tier while protection lasts, the current one after, from the injected clock (days remaining
 * alone: test/unit/agency/tier-protection.test.ts).
 */
describe('tier protection (domain)', () => {
  let harness: AgencyHarness;
  beforeAll(async () => {
    harness = await startAgencyDomain();
  });
  afterAll(() => harness.stop());
  afterEach(() => harness.clock.set(START));

  /** A project with three tiers (bronze 1 < silver 2 < gold 3) and a plain segment. */
  async function tieredProject() {
    const projectId = newProject();
    const tier = (name: string, tierRank: number) =>
      harness.audience.segments.create(projectId, { name: `${name} ${randomBytes(2).toString('hex')}`, tierRank });
    const [bronze, silver, gold] = [await tier('Bronze', 1), await tier('Silver', 2), await tier('Gold', 3)];
    const plain = await harness.audience.segments.create(projectId, { name: `Plain ${randomBytes(2).toString('hex')}` });
    return { projectId, bronze, silver, gold, plain };
  }
  const join = (projectId: string, segmentId: string, affiliate: AffiliateRecord) =>
    harness.audience.entries.add(projectId, segmentId, affiliate.user.identifier, affiliate.user.identifierType);
  /** The affiliate body's tiers, once the agency's projections have the audience's events so far. */
  const tiersOf = async (affiliate: AffiliateRecord) => {
    await harness.projectAudience();
    const view = await harness.domain.details.describeOne(affiliate);
    return { current: view.currentTier?.rank ?? null, active: view.activeTier?.rank ?? null, protection: view.tierProtection };
  };

  it('keeps the protected tier active a day before the end, and on and after the end only the current tier', async () => {
    const { projectId, silver, gold } = await tieredProject();
    const affiliate = await newAffiliate(harness, projectId);
    await join(projectId, silver.id, affiliate);
    await harness.domain.tierProtection.set(projectId, userOf(affiliate), { tierId: gold.id, protectionDays: 30 }, ADMIN);
    const expiresAt = at(30);

    harness.clock.set(at(0));
    expect(await tiersOf(affiliate)).toEqual({ current: 2, active: 3, protection: { tierId: gold.id, expiresAt, daysRemaining: 30 } });
    harness.clock.set(at(29));
    expect(await tiersOf(affiliate)).toEqual({ current: 2, active: 3, protection: { tierId: gold.id, expiresAt, daysRemaining: 1 } });
    harness.clock.set(at(30, -1));
    expect(await tiersOf(affiliate)).toEqual({ current: 2, active: 3, protection: { tierId: gold.id, expiresAt, daysRemaining: 1 } });
    harness.clock.set(at(30));
    expect(await tiersOf(affiliate)).toEqual({ current: 2, active: 2, protection: null });
    harness.clock.set(at(31));
    expect(await tiersOf(affiliate)).toEqual({ current: 2, active: 2, protection: null });
  });

  it('never lowers the active tier: a current tier above the protected one stays active', async () => {
    const { projectId, bronze, gold } = await tieredProject();
    const affiliate = await newAffiliate(harness, projectId);
    await join(projectId, gold.id, affiliate);
    await harness.domain.tierProtection.set(projectId, userOf(affiliate), { tierId: bronze.id, protectionDays: 7 }, ADMIN);
    expect(await tiersOf(affiliate)).toMatchObject({ current: 3, active: 3, protection: { tierId: bronze.id, daysRemaining: 7 } });
  });

  it('gives an affiliate in no tier segment the protected tier while it lasts, and no tier after', async () => {
    const { projectId, silver } = await tieredProject();
    const affiliate = await newAffiliate(harness, projectId);
    await harness.domain.tierProtection.set(projectId, userOf(affiliate), { tierId: silver.id, expiresAt: at(2) }, ADMIN);
    expect(await tiersOf(affiliate)).toMatchObject({ current: null, active: 2, protection: { daysRemaining: 2 } });
    harness.clock.set(at(2));
    expect(await tiersOf(affiliate)).toEqual({ current: null, active: null, protection: null });
  });

  it('attributes a conversion at the active tier of its moment: protected before the end, current from the end', async () => {
    const { projectId, silver, gold } = await tieredProject();
    const affiliate = await newAffiliate(harness, projectId);
    await join(projectId, silver.id, affiliate);
    const user = newUser();
    await harness.domain.referrals.refer(projectId, user, affiliate.codes[0]!.code);
    await harness.domain.tierProtection.set(projectId, userOf(affiliate), { tierId: gold.id, protectionDays: 3 }, ADMIN);
    await harness.projectAudience();
    const results = await harness.domain.attribution.resolveBatch(
      projectId,
      [at(0, -1), at(0), at(2), at(3, -1), at(3), at(4)].map((moment) => ({ user, at: moment })),
    );
    expect(results.map((result) => ('error' in result ? result.error.code : result.activeTierId))).toEqual([
      // Before the affiliate referred the user: nobody to pay.
      null,
      gold.id,
      gold.id,
      gold.id,
      silver.id,
      silver.id,
    ]);
  });

  it('replaces the protection in force with a new one, and ends it on request (the period stays in the history)', async () => {
    const { projectId, silver, gold } = await tieredProject();
    const affiliate = await newAffiliate(harness, projectId);
    await harness.domain.tierProtection.set(projectId, userOf(affiliate), { tierId: gold.id, protectionDays: 10 }, ADMIN);
    harness.clock.set(at(1));
    await harness.domain.tierProtection.set(projectId, userOf(affiliate), { tierId: silver.id, protectionDays: 5 }, ADMIN);
    expect(await tiersOf(affiliate)).toMatchObject({ active: 2, protection: { tierId: silver.id, expiresAt: at(6), daysRemaining: 5 } });
    harness.clock.set(at(2));
    await harness.domain.tierProtection.end(projectId, userOf(affiliate), ADMIN);
    expect(await tiersOf(affiliate)).toEqual({ current: null, active: null, protection: null });
    await expect(harness.domain.tierProtection.end(projectId, userOf(affiliate), ADMIN)).rejects.toMatchObject({
      code: 'TIER_PROTECTION_NOT_FOUND',
      kind: 'not_found',
    });
    const { rows } = await harness.sql.query(
      'SELECT tier_id, starts_at, expires_at, ended_at FROM agency.tier_protections WHERE affiliate_id = $1 ORDER BY id',
      [affiliate.id],
    );
    expect(rows).toEqual([
      { tier_id: gold.id, starts_at: at(0), expires_at: at(10), ended_at: at(1) },
      { tier_id: silver.id, starts_at: at(1), expires_at: at(6), ended_at: at(2) },
    ]);
    // Attribution at a moment of the first period still sees it.
    const user = newUser();
    harness.clock.set(at(0));
    await harness.domain.referrals.refer(projectId, user, affiliate.codes[0]!.code);
    await harness.projectAudience();
    const [first] = await harness.domain.attribution.resolveBatch(projectId, [{ user, at: at(0, 1) }]);
    expect(first).toMatchObject({ activeTierId: gold.id });
  });

  it.each([
    ['neither days nor an end', {}, 'protection_days'],
    ['both days and an end', { protectionDays: 3, expiresAt: at(3) }, 'protection_days'],
    ['0 days', { protectionDays: 0 }, 'protection_days'],
    ['366 days', { protectionDays: 366 }, 'protection_days'],
    ['a fraction of a day', { protectionDays: 1.5 }, 'protection_days'],
    ['an end in the past', { expiresAt: at(-1) }, 'expires_at'],
    ['an end right now', { expiresAt: at(0) }, 'expires_at'],
    ['an end more than 365 days ahead', { expiresAt: at(365, 1) }, 'expires_at'],
  ])('refuses %s, naming the field, and protects nothing', async (_what, input, field) => {
    const { projectId, gold } = await tieredProject();
    const affiliate = await newAffiliate(harness, projectId);
    await expect(harness.domain.tierProtection.set(projectId, userOf(affiliate), { tierId: gold.id, ...input }, ADMIN)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [expect.objectContaining({ field })],
    });
    expect((await tiersOf(affiliate)).protection).toBeNull();
  });

  it('accepts the ends of the range: 1 day, 365 days, and an end exactly 365 days ahead', async () => {
    const { projectId, gold } = await tieredProject();
    const affiliate = await newAffiliate(harness, projectId);
    for (const input of [{ protectionDays: 1 }, { protectionDays: 365 }, { expiresAt: at(365) }]) {
      await harness.domain.tierProtection.set(projectId, userOf(affiliate), { tierId: gold.id, ...input }, ADMIN);
    }
    expect((await tiersOf(affiliate)).protection).toMatchObject({ daysRemaining: 365 });
  });

  it('needs a tier of the project: unknown or another project’s segment (404 TIER_NOT_FOUND), a segment without a rank (400 NOT_A_TIER), and an affiliate', async () => {
    const { projectId, gold, plain } = await tieredProject();
    const other = await tieredProject();
    const affiliate = await newAffiliate(harness, projectId);
    const protect = (tierId: string, user: { identifier: string; identifierType: string } = userOf(affiliate)) =>
      harness.domain.tierProtection.set(projectId, user, { tierId, protectionDays: 5 }, ADMIN);
    for (const tierId of [randomUUID(), 'gold', other.gold.id])
      await expect(protect(tierId)).rejects.toMatchObject({ code: 'TIER_NOT_FOUND', kind: 'not_found' });
    await expect(protect(plain.id)).rejects.toMatchObject({ code: 'NOT_A_TIER', kind: 'invalid_argument', details: [{ field: 'tier_id' }] });
    await expect(protect(gold.id, newUser())).rejects.toMatchObject({ code: 'AFFILIATE_NOT_FOUND' });
    expect((await tiersOf(affiliate)).protection).toBeNull();
  });

  it('reads a protected tier that is no longer a tier as no protected tier (the current one stays active)', async () => {
    const { projectId, silver, gold } = await tieredProject();
    const affiliate = await newAffiliate(harness, projectId);
    await join(projectId, silver.id, affiliate);
    await harness.domain.tierProtection.set(projectId, userOf(affiliate), { tierId: gold.id, protectionDays: 5 }, ADMIN);
    await harness.audience.segments.update(projectId, gold.id, ['tier_rank'], {});
    expect(await tiersOf(affiliate)).toMatchObject({ current: 2, active: 2, protection: { tierId: gold.id, daysRemaining: 5 } });
  });
});
