import { startAgencyDomain } from '../../helpers/agency-domain';
import { type AgencyHarness, newAffiliate, newCode, newProject, newUser } from './fixtures';

const START = '2026-11-21T12:00:00.000Z';

/** Who referred whom: first referral wins, no self-referral, a suspended affiliate's code refers nobody. */
describe('referrals (domain)', () => {
  let harness: AgencyHarness;
  beforeAll(async () => {
    harness = await startAgencyDomain();
  });
  afterAll(() => harness.stop());
  afterEach(() => harness.clock.set(START));

  const refer = (projectId: string, user: { identifier: string; identifierType: string }, code: string) =>
    harness.domain.referrals.refer(projectId, user, code);
  const referralRows = async (projectId: string) =>
    (
      await harness.sql.query('SELECT identifier, affiliate_id, code, referred_at FROM agency.referrals WHERE project_id = $1 ORDER BY referred_at', [
        projectId,
      ])
    ).rows;

  it('refers a user with a code in any letter case, storing the code as its affiliate registered it', async () => {
    const projectId = newProject();
    const alice = newUser();
    const aliceAffiliate = await harness.domain.affiliates.create(projectId, alice, { name: 'Alice', code: 'AliceRocks' });
    const user = newUser();
    const { referral, created } = await refer(projectId, user, 'alicerocks');
    expect(created).toBe(true);
    expect(referral).toEqual({ user, affiliate: { id: aliceAffiliate.id, user: alice }, code: 'AliceRocks', referredAt: new Date(START) });
    expect((await harness.domain.affiliates.get(projectId, alice)).codes).toEqual([
      { code: 'AliceRocks', uses: 1n, createdAt: new Date(START), userRebateRateBps: null },
    ]);
  });

  it('keeps the first referral: the same affiliate again (any of its codes) answers it unchanged, another affiliate is refused', async () => {
    const projectId = newProject();
    const first = await newAffiliate(harness, projectId, 'First');
    await harness.domain.affiliates.addCode(projectId, first.user, 'first_second_code');
    const second = await newAffiliate(harness, projectId, 'Second');
    const user = newUser();
    await refer(projectId, user, first.code);
    harness.clock.advance(3_600_000);
    expect(await refer(projectId, user, first.code)).toMatchObject({ created: false, referral: { code: first.code, referredAt: new Date(START) } });
    expect(await refer(projectId, user, 'first_second_code')).toMatchObject({ created: false, referral: { code: first.code } });
    await expect(refer(projectId, user, second.code)).rejects.toMatchObject({ code: 'ALREADY_REFERRED', kind: 'conflict' });
    expect(await referralRows(projectId)).toEqual([
      { identifier: user.identifier, affiliate_id: first.affiliate.id, code: first.code, referred_at: new Date(START) },
    ]);
  });

  it('announces a new referral once (agency.referral.created, for the audience metrics); a repeat or a refused referral announces nothing', async () => {
    const projectId = newProject();
    const first = await newAffiliate(harness, projectId, 'First');
    const second = await newAffiliate(harness, projectId, 'Second');
    const user = newUser();
    await refer(projectId, user, first.code);
    await refer(projectId, user, first.code);
    await expect(refer(projectId, user, second.code)).rejects.toMatchObject({ code: 'ALREADY_REFERRED' });
    await expect(refer(projectId, first.user, first.code)).rejects.toMatchObject({ code: 'SELF_REFERRAL' });
    const { rows } = await harness.sql.query(`SELECT payload FROM agency.outbox WHERE project_id = $1 AND type = 'agency.referral.created'`, [
      projectId,
    ]);
    expect(rows.map((row) => row.payload)).toEqual([
      {
        project_id: projectId,
        user: { identifier: user.identifier, identifier_type: user.identifierType },
        affiliate: { id: first.affiliate.id, user: { identifier: first.user.identifier, identifier_type: first.user.identifierType } },
        referred_at: START,
      },
    ]);
  });

  it('lets exactly one of 100 concurrent referrals of one user (each by another affiliate) win', async () => {
    const projectId = newProject();
    const affiliates = await Promise.all(Array.from({ length: 100 }, (_, n) => newAffiliate(harness, projectId, `Affiliate ${n}`)));
    const user = newUser();
    const results = await Promise.allSettled(affiliates.map((affiliate) => refer(projectId, user, affiliate.code)));
    const won = results.filter((result) => result.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect(results.filter((result) => result.status === 'rejected').map((result) => result.reason.code)).toEqual(Array(99).fill('ALREADY_REFERRED'));
    const winner = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof refer>>>).value.referral.affiliate.id;
    expect(await referralRows(projectId)).toEqual([expect.objectContaining({ affiliate_id: winner })]);
  });

  it('refuses an affiliate referring itself, in any spelling of its identifier', async () => {
    const projectId = newProject();
    const { user, code } = await newAffiliate(harness, projectId);
    await expect(refer(projectId, { ...user, identifier: user.identifier.toUpperCase().replace('0X', '0x') }, code)).rejects.toMatchObject({
      code: 'SELF_REFERRAL',
      kind: 'failed_precondition',
    });
    expect(await referralRows(projectId)).toEqual([]);
  });

  it('lets an affiliate be referred by another affiliate', async () => {
    const projectId = newProject();
    const alice = await newAffiliate(harness, projectId, 'Alice');
    const bob = await newAffiliate(harness, projectId, 'Bob');
    await expect(refer(projectId, bob.user, alice.code)).resolves.toMatchObject({ created: true });
  });

  it('refers nobody with a suspended affiliate’s code, but still answers a referral it made before', async () => {
    const projectId = newProject();
    const { user: affiliateUser, code } = await newAffiliate(harness, projectId);
    const before = newUser();
    await refer(projectId, before, code);
    await harness.domain.affiliates.suspend(projectId, affiliateUser, 'fraud', null);
    await expect(refer(projectId, newUser(), code)).rejects.toMatchObject({ code: 'AFFILIATE_SUSPENDED', kind: 'conflict' });
    await expect(refer(projectId, before, code)).resolves.toMatchObject({ created: false });
    await harness.domain.affiliates.reactivate(projectId, affiliateUser, null);
    await expect(refer(projectId, newUser(), code)).resolves.toMatchObject({ created: true });
  });

  it('refuses an unknown code, a malformed one and an invalid user, storing nothing', async () => {
    const projectId = newProject();
    await expect(refer(projectId, newUser(), newCode())).rejects.toMatchObject({ code: 'CODE_NOT_FOUND', kind: 'not_found' });
    await expect(refer(projectId, newUser(), 'a b')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'code', reason: expect.any(String) }],
    });
    const { code } = await newAffiliate(harness, projectId);
    await expect(refer(projectId, { identifier: 'nobody', identifierType: 'evm_address' }, code)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'user.identifier', reason: expect.any(String) }],
    });
    expect(await referralRows(projectId)).toEqual([]);
  });

  it('keeps referrals per project: a code of another project refers nobody here', async () => {
    const { code } = await newAffiliate(harness, newProject());
    await expect(refer(newProject(), newUser(), code)).rejects.toMatchObject({ code: 'CODE_NOT_FOUND' });
  });

  it('answers the referrer with its name and all its codes, oldest first, or nothing', async () => {
    const projectId = newProject();
    const { user: affiliateUser, code, affiliate } = await newAffiliate(harness, projectId, 'Alice');
    harness.clock.advance(1_000);
    await harness.domain.affiliates.addCode(projectId, affiliateUser, 'alice_later');
    const user = newUser();
    expect(await harness.domain.referrals.referrer(projectId, user)).toBeUndefined();
    await refer(projectId, user, 'ALICE_LATER');
    expect(await harness.domain.referrals.referrer(projectId, user)).toEqual({
      referral: { user, affiliate: { id: affiliate.id, user: affiliateUser }, code: 'alice_later', referredAt: harness.clock.now() },
      name: 'Alice',
      codes: [code, 'alice_later'],
      referralCodeRebateRateBps: null,
    });
  });
});
