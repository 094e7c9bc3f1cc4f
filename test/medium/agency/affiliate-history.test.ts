import { randomBytes } from 'node:crypto';
import { type AgencyHarness, startAgencyDomain } from '../../helpers/agency-domain';
import { ADMIN, actor, newAffiliate, newProject, newUser, userOf } from './program-fixtures';

const START = '2026-11-21T12:00:00.000Z';
const MINUTE = 60_000;
const DAY = 86_400_000;
const page = (n: number, size: number) => ({ page: n, pageSize: size, offset: (n - 1) * size });

/**
 * An affiliate's activity history (§2.9): every kind of entry from the agency's own history tables,
 * newest first in one stable order, paged in SQL, each with its facts.
 */
describe('affiliate history (domain)', () => {
  let harness: AgencyHarness;
  beforeAll(async () => {
    harness = await startAgencyDomain();
  });
  afterAll(() => harness.stop());
  afterEach(() => harness.clock.set(START));

  const history = (projectId: string, user: { identifier: string; identifierType: string }, n = 1, size = 100) =>
    harness.domain.activity.historyOf(projectId, user, page(n, size));
  const tick = () => harness.clock.advance(MINUTE);

  it('tells an affiliate’s whole life, newest first: application, approval, codes, suspension, protection, master binding', async () => {
    const projectId = newProject();
    const audience = await harness.audience.segments.create(projectId, { name: `Static ${randomBytes(2).toString('hex')}` });
    const tier = await harness.audience.segments.create(projectId, { name: `Gold ${randomBytes(2).toString('hex')}`, tierRank: 1 });
    const user = newUser();
    const application = await harness.domain.applications.submit(projectId, user, { name: 'Ada', code: 'ada_code' });
    tick();
    await harness.domain.applications.decide(projectId, application.id, { action: 'hold', note: 'later' }, ADMIN);
    tick();
    await harness.domain.applications.decide(projectId, application.id, { action: 'approve', audienceId: audience.id }, ADMIN);
    tick();
    await harness.domain.affiliates.addCode(projectId, user, 'ada_two');
    tick();
    await harness.domain.affiliates.suspend(projectId, user, 'fraud check', ADMIN);
    tick();
    await harness.domain.affiliates.reactivate(projectId, user, ADMIN);
    tick();
    await harness.domain.tierProtection.set(projectId, user, { tierId: tier.id, protectionDays: 30 }, ADMIN);
    tick();
    await harness.domain.tierProtection.end(projectId, user, ADMIN);
    tick();
    const master = await newAffiliate(harness, projectId, 'Boss');
    await harness.domain.masters.designate(projectId, userOf(master), 500, actor);
    tick();
    await harness.domain.masters.bind(projectId, master.id, [user], actor);
    tick();
    await harness.domain.masters.unbind(projectId, master.id, user, actor);

    const { records, total } = await history(projectId, user);
    const t = (minutes: number) => new Date(Date.parse(START) + minutes * MINUTE);
    const masterRef = { id: master.id, identifier: master.user.identifier, identifier_type: 'evm_address' };
    expect(records).toEqual([
      { type: 'unbound_from_master', at: t(10), data: { master: masterRef, by_api_key_id: ADMIN, master_removed: false, became_master: false } },
      { type: 'bound_to_master', at: t(9), data: { master: masterRef, by_api_key_id: ADMIN } },
      { type: 'tier_protection_ended', at: t(7), data: { tier_id: tier.id, by_api_key_id: ADMIN, replaced: false } },
      {
        type: 'tier_protection_set',
        at: t(6),
        data: { tier_id: tier.id, expires_at: new Date(t(6).getTime() + 30 * DAY).toISOString(), by_api_key_id: ADMIN },
      },
      { type: 'reactivated', at: t(5), data: { suspension_reason: 'fraud check', suspended_at: t(4).toISOString(), by_api_key_id: ADMIN } },
      { type: 'suspended', at: t(4), data: { reason: 'fraud check', by_api_key_id: ADMIN } },
      { type: 'code_created', at: t(3), data: { code: 'ada_two' } },
      // The approval made the affiliate, its granted code and the decision at one instant, in one stable order.
      {
        type: 'application_approved',
        at: t(2),
        data: { application_id: application.id, audience_id: audience.id, granted_code: 'ada_code', by_api_key_id: ADMIN },
      },
      { type: 'code_created', at: t(2), data: { code: 'ada_code' } },
      { type: 'joined', at: t(2), data: { name: 'Ada', region: null } },
      { type: 'application_held', at: t(1), data: { application_id: application.id, note: 'later', by_api_key_id: ADMIN } },
      { type: 'application_submitted', at: t(0), data: { application_id: application.id, name: 'Ada', code: 'ada_code' } },
    ]);
    expect(total).toBe(records.length);
  });

  it('tells a master its designation, spread changes, sub-affiliates bound, and the removal that released them', async () => {
    const projectId = newProject();
    const master = await newAffiliate(harness, projectId, 'Boss');
    const [first, second] = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
    tick();
    await harness.domain.masters.designate(projectId, userOf(master), 300, actor);
    tick();
    await harness.domain.masters.updateSpread(projectId, master.id, 450, actor);
    tick();
    await harness.domain.masters.bind(projectId, master.id, [userOf(first), userOf(second)], actor);
    tick();
    await harness.domain.masters.remove(projectId, master.id, actor);

    const { records } = await history(projectId, userOf(master));
    const refOf = (affiliate: typeof first) => ({ id: affiliate.id, identifier: affiliate.user.identifier, identifier_type: 'evm_address' });
    const t = (minutes: number) => new Date(Date.parse(START) + minutes * MINUTE);
    expect(records.map(({ type, at }) => [type, at])).toEqual([
      ['master_removed', t(4)],
      ['sub_affiliate_unbound', t(4)],
      ['sub_affiliate_unbound', t(4)],
      ['sub_affiliate_bound', t(3)],
      ['sub_affiliate_bound', t(3)],
      ['master_spread_changed', t(2)],
      ['master_designated', t(1)],
      ['code_created', t(0)],
      ['joined', t(0)],
    ]);
    expect(records.filter((record) => record.type === 'sub_affiliate_unbound').map((record) => record.data)).toEqual(
      expect.arrayContaining([
        { affiliate: refOf(first), by_api_key_id: ADMIN, master_removed: true, became_master: false },
        { affiliate: refOf(second), by_api_key_id: ADMIN, master_removed: true, became_master: false },
      ]),
    );
    expect(records.find((record) => record.type === 'master_spread_changed')!.data).toEqual({
      spread_bps: 450,
      previous_spread_bps: 300,
      by_api_key_id: ADMIN,
    });
    expect(records.find((record) => record.type === 'master_designated')!.data).toEqual({
      spread_bps: 300,
      by_api_key_id: ADMIN,
      unbound_from_master: null,
    });
    // The sub-affiliate's side of the removal says the same.
    const sub = await history(projectId, userOf(first));
    expect(sub.records[0]).toMatchObject({ type: 'unbound_from_master', at: t(4), data: { master: refOf(master), master_removed: true } });
  });

  it('tells both sides when a sub-affiliate is designated a master: its binding ended by the designation, which names the old master', async () => {
    const projectId = newProject();
    const [old, sub] = [await newAffiliate(harness, projectId, 'Old'), await newAffiliate(harness, projectId, 'Sub')];
    tick();
    await harness.domain.masters.designate(projectId, userOf(old), 300, actor);
    tick();
    await harness.domain.masters.bind(projectId, old.id, [userOf(sub)], actor);
    tick();
    await harness.domain.masters.designate(projectId, userOf(sub), 120, actor);

    const refOf = (affiliate: typeof sub) => ({ id: affiliate.id, identifier: affiliate.user.identifier, identifier_type: 'evm_address' });
    const t = (minutes: number) => new Date(Date.parse(START) + minutes * MINUTE);
    const own = await history(projectId, userOf(sub));
    // Newest first; at the one instant, the designation reads after the unbinding it caused.
    expect(own.records.slice(0, 3)).toEqual([
      { type: 'master_designated', at: t(3), data: { spread_bps: 120, by_api_key_id: ADMIN, unbound_from_master: refOf(old) } },
      { type: 'unbound_from_master', at: t(3), data: { master: refOf(old), by_api_key_id: ADMIN, master_removed: false, became_master: true } },
      { type: 'bound_to_master', at: t(2), data: { master: refOf(old), by_api_key_id: ADMIN } },
    ]);
    const former = await history(projectId, userOf(old));
    expect(former.records.slice(0, 2)).toEqual([
      { type: 'sub_affiliate_unbound', at: t(3), data: { affiliate: refOf(sub), by_api_key_id: ADMIN, master_removed: false, became_master: true } },
      { type: 'sub_affiliate_bound', at: t(2), data: { affiliate: refOf(sub), by_api_key_id: ADMIN } },
    ]);
  });

  it('marks a protection replaced by the next one, and one that ran out as expired once the clock passes its end', async () => {
    const projectId = newProject();
    const tier = await harness.audience.segments.create(projectId, { name: `Silver ${randomBytes(2).toString('hex')}`, tierRank: 1 });
    const affiliate = await newAffiliate(harness, projectId);
    await harness.domain.tierProtection.set(projectId, userOf(affiliate), { tierId: tier.id, protectionDays: 5 }, ADMIN);
    harness.clock.advance(DAY);
    await harness.domain.tierProtection.set(projectId, userOf(affiliate), { tierId: tier.id, protectionDays: 2 }, ADMIN);
    const before = (await history(projectId, userOf(affiliate))).records.map((record) => record.type);
    expect(before).toEqual(['tier_protection_set', 'tier_protection_ended', 'tier_protection_set', 'code_created', 'joined']);
    expect((await history(projectId, userOf(affiliate))).records[1]!.data).toMatchObject({ replaced: true });

    harness.clock.advance(3 * DAY);
    const after = (await history(projectId, userOf(affiliate))).records;
    expect(after[0]).toEqual({ type: 'tier_protection_expired', at: new Date(Date.parse(START) + 3 * DAY), data: { tier_id: tier.id } });
  });

  it('pages newest first without repeating or skipping an entry, with the total on every page and past the end', async () => {
    const projectId = newProject();
    const affiliate = await newAffiliate(harness, projectId);
    // Many entries at one instant (the stable key orders them) and across instants.
    for (let i = 0; i < 9; i += 1) {
      if (i % 3 === 0) tick();
      await harness.domain.affiliates.addCode(projectId, userOf(affiliate), `code_${i}_${randomBytes(2).toString('hex')}`);
    }
    const all = await history(projectId, userOf(affiliate));
    expect(all.total).toBe(11);
    const at = all.records.map((record) => record.at.getTime());
    expect([...at].sort((a, b) => b - a)).toEqual(at);

    const pages = [];
    for (let n = 1; n <= 3; n += 1) {
      const one = await history(projectId, userOf(affiliate), n, 4);
      expect(one.total).toBe(11);
      pages.push(...one.records);
    }
    expect(pages).toEqual(all.records);
    expect(await history(projectId, userOf(affiliate), 4, 4)).toEqual({ records: [], total: 11 });
  });

  it('answers AFFILIATE_NOT_FOUND for a user who is no affiliate, even with applications of its own', async () => {
    const projectId = newProject();
    const user = newUser();
    await harness.domain.applications.submit(projectId, user, { name: 'Not yet' });
    await expect(history(projectId, user)).rejects.toMatchObject({ code: 'AFFILIATE_NOT_FOUND' });
    await expect(history(projectId, { identifier: 'nope', identifierType: 'evm_address' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('keeps another project’s entries out, even for the same user', async () => {
    const [projectA, projectB] = [newProject(), newProject()];
    const user = newUser();
    await harness.domain.affiliates.create(projectA, user, { name: 'A', code: `a${randomBytes(4).toString('hex')}` });
    await harness.domain.affiliates.create(projectB, user, { name: 'B' });
    await harness.domain.affiliates.suspend(projectA, user, 'only in A', ADMIN);
    expect((await history(projectB, user)).records.map((record) => record.type)).toEqual(['joined']);
  });
});
