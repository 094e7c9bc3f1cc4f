import { randomUUID } from 'node:crypto';
import { REFERRAL_CODE_RULES } from '../../../services/rules/contract-limits';
import { randomEvmAddress } from '../../helpers/evm-addresses';
import { startAgencyDomain } from '../../helpers/agency-domain';
import { type AgencyHarness, newCode, newProject, newUser } from './fixtures';

const invalid = (field: string) => ({
  kind: 'invalid_argument',
  code: 'VALIDATION_FAILED',
  details: expect.arrayContaining([expect.objectContaining({ field })]),
});

/** The affiliate's code updates and user rebate rates, and what each code brought (docs/affiliates.md#changing-a-code-and-user-rebate-rates). */
describe('affiliate code updates, rebate rates and code figures (domain)', () => {
  let harness: AgencyHarness;
  beforeAll(async () => {
    harness = await startAgencyDomain({});
  });
  afterAll(() => harness.stop());

  const affiliates = () => harness.domain.affiliates;
  const rates = async (projectId: string, user: ReturnType<typeof newUser>) =>
    (await affiliates().get(projectId, user)).codes.map((code) => [code.code, code.userRebateRateBps]);

  it('adds the new code as the newest with the newest code’s rate; a code already held changes nothing', async () => {
    const projectId = newProject();
    const user = newUser();
    await affiliates().create(projectId, user, { name: 'Alice', code: 'first', codeRebateRateBps: 300 });
    await affiliates().addCode(projectId, user, 'second');
    await affiliates().setRebateRate(projectId, user, 'SECOND', 1_200);
    await affiliates().updateCode(projectId, user, 'third');
    expect(await rates(projectId, user)).toEqual([
      ['first', 300],
      ['second', 1_200],
      ['third', 1_200],
    ]);
    await affiliates().updateCode(projectId, user, 'FIRST');
    expect(await rates(projectId, user)).toHaveLength(3);
  });

  it('refuses a code another affiliate holds, an invalid code, a stranger and a 21st code', async () => {
    const projectId = newProject();
    const user = newUser();
    await affiliates().create(projectId, user, { name: 'Alice', code: newCode() });
    const other = newUser();
    await affiliates().create(projectId, other, { name: 'Bob', code: 'bobs_code' });
    await expect(affiliates().updateCode(projectId, user, 'BOBS_CODE')).rejects.toMatchObject({ kind: 'already_exists', code: 'CODE_IN_USE' });
    await expect(affiliates().updateCode(projectId, user, 'no')).rejects.toMatchObject(invalid('code'));
    await expect(affiliates().updateCode(projectId, newUser(), newCode())).rejects.toMatchObject({ code: 'AFFILIATE_NOT_FOUND' });
    for (let held = 1; held < REFERRAL_CODE_RULES.maxPerAffiliate; held++) await affiliates().updateCode(projectId, user, newCode());
    await expect(affiliates().updateCode(projectId, user, newCode())).rejects.toMatchObject({ code: 'CODE_LIMIT_REACHED' });
  });

  it('keeps rates to whole basis points from 0 to 2,000, on a code the affiliate holds', async () => {
    const projectId = newProject();
    const user = newUser();
    await expect(affiliates().create(projectId, user, { name: 'Alice', code: 'alices', codeRebateRateBps: 2_001 })).rejects.toMatchObject(
      invalid('user_rebate_rate_bps'),
    );
    await expect(affiliates().create(projectId, user, { name: 'Alice', codeRebateRateBps: 100 })).rejects.toMatchObject(
      invalid('user_rebate_rate_bps'),
    );
    await affiliates().create(projectId, user, { name: 'Alice', code: 'alices' });
    for (const bps of [-1, 2_001, 12.5]) {
      await expect(affiliates().setRebateRate(projectId, user, 'alices', bps)).rejects.toMatchObject(invalid('user_rebate_rate_bps'));
    }
    await expect(affiliates().setRebateRate(projectId, user, 'someone_elses', 100)).rejects.toMatchObject({ code: 'CODE_NOT_FOUND' });
    await expect(affiliates().setRebateRate(projectId, newUser(), 'alices', 100)).rejects.toMatchObject({ code: 'AFFILIATE_NOT_FOUND' });
    expect(await rates(projectId, user)).toEqual([['alices', null]]);
    await affiliates().setRebateRate(projectId, user, 'alices', 2_000);
    await affiliates().setRebateRate(projectId, user, 'alices', null);
    expect(await rates(projectId, user)).toEqual([['alices', null]]);
  });

  it('answers each code’s clicks and the payouts through it, net of reversals, in whole units of known currencies', async () => {
    const projectId = newProject();
    const user = newUser();
    const affiliate = await affiliates().create(projectId, user, { name: 'Alice', code: 'Stats_One' });
    await affiliates().updateCode(projectId, user, 'Stats_Two');
    await affiliates().addCode(projectId, user, 'Stats_Idle');
    const [u1, u2, u3] = [newUser(), newUser(), newUser()];
    await harness.domain.referrals.refer(projectId, u1, 'stats_one');
    await harness.domain.referrals.refer(projectId, u2, 'Stats_One');
    await harness.domain.referrals.refer(projectId, u3, 'STATS_TWO');

    const db = harness.db;
    const now = new Date('2026-11-21T12:00:00.000Z');
    const usdc = randomUUID();
    const dai = randomUUID();
    await db
      .insertInto('metric_currencies')
      .values([
        { id: usdc, project_id: projectId, chain_id: '8453', address: randomEvmAddress(), name: 'USDC', decimals: 6 },
        { id: dai, project_id: projectId, chain_id: '8453', address: randomEvmAddress(), name: 'DAI', decimals: 18 },
      ])
      .execute();
    const fact = (who: ReturnType<typeof newUser>, currencyId: string, payout: string, reversedBps = 0) => ({
      project_id: projectId,
      conversion_id: `conv-${randomUUID()}`,
      name: 'trade',
      status: 'processed' as const,
      occurred_at: now,
      identifier_type: who.identifierType,
      identifier: who.identifier,
      affiliate_id: affiliate.id,
      currency_id: currencyId,
      affiliate_payout: payout,
      agency_payout: '0',
      recorded_at: now,
      reversed_bps: reversedBps,
    });
    await db
      .insertInto('conversion_facts')
      .values([
        fact(u1, usdc, '1500000'),
        // Half reversed: the fact's payout is what is left.
        fact(u2, usdc, '250000', 5_000),
        fact(u2, dai, '3000000000000000000'),
        fact(u3, usdc, '1'),
        // A currency whose details have not arrived yet: left out.
        fact(u3, randomUUID(), '999'),
        // A conversion of a user nobody referred through these codes.
        fact(newUser(), usdc, '7000000'),
      ])
      .execute();
    await db
      .insertInto('code_clicks')
      .values([
        { project_id: projectId, code: 'stats_one', tracking_id: 'a', day: '2026-11-20', first_at: now },
        { project_id: projectId, code: 'stats_one', tracking_id: 'a', day: '2026-11-21', first_at: now },
        { project_id: projectId, code: 'stats_two', tracking_id: 'b', day: '2026-11-21', first_at: now },
        { project_id: newProject(), code: 'stats_two', tracking_id: 'b', day: '2026-11-21', first_at: now },
      ])
      .execute();

    expect(await affiliates().codeStats(projectId, affiliate.id)).toEqual(
      new Map([
        ['Stats_One', { clicks: 2n, earnings: '4.75' }],
        ['Stats_Two', { clicks: 1n, earnings: '0.000001' }],
        ['Stats_Idle', { clicks: 0n, earnings: '0' }],
      ]),
    );
  });
});
