import { randomUUID } from 'node:crypto';
import { Fuul } from '@fuul/sdk';
import { initFuulSdk } from '../helpers/fuul-sdk';
import type { EventPayload } from '../../services/platform/events/contracts';
import { SERVICE_CATALOG } from '../../services/platform/service-catalog';
import { randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';
import { newWallet, signIn, type TestWallet } from '../helpers/wallet';

type Processed = EventPayload<'claim.conversion.processed'>;
type Wallet = { identifier: string; identifier_type: 'evm_address' };

/**
 * Issue 25 §2 and §4, the agency's half of referral levels through the published @fuul/sdk against the running
 * stack: a chain Carol → Bob → Alice → Dave (each referred by the one before it), conversions whose frozen upline
 * the claim service's events carry (written here into the claim service's outbox, as the claim side writes them),
 * then the per-level figures and the tree the SDK and the admin detail read, exactly.
 */
describe('referral levels through the @fuul/sdk and the affiliate detail', () => {
  let stack: TestStack;
  let project: TestProject;
  const wallet = (): Wallet => ({ identifier: randomEvmAddress(), identifier_type: 'evm_address' });
  const [carol, bob, alice, dave, u1, u2] = [wallet(), wallet(), wallet(), wallet(), wallet(), wallet()];
  const ids = new Map<Wallet, string>();
  const code = (wallet: Wallet) => `c${wallet.identifier.slice(2, 12)}`;
  const usdc = { id: randomUUID(), chain_id: '8453', address: randomEvmAddress(), name: 'USDC', decimals: 6 };
  const admin = () => ({ key: project.keys.admin });
  /** Carol's keys: she signs in to her portal. */
  let carolWallet: TestWallet;

  /** A conversion as the claim service tells it: `paid` base units per level, in chain order from the affiliate. */
  function processed(
    user: Wallet,
    chain: Wallet[],
    fields: { volume: string; revenue: string; paid: bigint[]; at: string; status?: 'no_terms' },
  ): Processed {
    const [affiliate, ...upline] = chain;
    const noTerms = fields.status === 'no_terms';
    return {
      conversion_id: `conv-${randomUUID()}`,
      name: 'trade',
      status: fields.status ?? 'processed',
      occurred_at: fields.at,
      user,
      affiliate: { id: ids.get(affiliate!)!, user: affiliate! },
      master: null,
      upline: upline.map((up, index) => ({ level: index + 2, id: ids.get(up)!, user: up })),
      tier_id: null,
      volume_usd: fields.volume,
      revenue_usd: fields.revenue,
      currency_id: noTerms ? null : usdc.id,
      currency: noTerms ? null : usdc,
      payouts: noTerms
        ? []
        : fields.paid.map((amount, index) => ({ kind: 'affiliate_payout' as const, user: chain[index]!, amount: String(amount), level: index + 1 })),
    };
  }

  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    carolWallet = await newWallet();
    carol.identifier = carolWallet.address;
    initFuulSdk(stack, project.keys.service);
    stack.clock.set('2026-10-01T00:00:00.000Z');
    for (const [wallet, name] of [
      [carol, 'Carol'],
      [bob, 'Bob'],
      [alice, 'Alice'],
      [dave, 'Dave'],
    ] as const) {
      const created = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
        ...admin(),
        body: { identifier: wallet.identifier, identifier_type: 'evm_address', name, code: code(wallet) },
      });
      if (created.status !== 201) throw new Error(`affiliate creation failed: ${created.status} ${created.text}`);
      ids.set(wallet, created.body.id);
    }
    const refer = async (user: Wallet, by: Wallet) => {
      const response = await stack.api.post('/api/v1/referrals', {
        key: project.keys.service,
        body: { user_identifier: user.identifier, user_identifier_type: 'evm_address', code: code(by) },
      });
      if (response.status !== 201) throw new Error(`referral failed: ${response.status} ${response.text}`);
    };
    await refer(bob, carol);
    await refer(alice, bob);
    await refer(dave, alice);
    await refer(u1, alice);
    await refer(u2, bob);
    const events = [
      // u1 at Alice: Bob level 2, Carol level 3; 1000, 300 and 201 USDC units.
      processed(u1, [alice, bob, carol], { volume: '100.5', revenue: '1.25', paid: [1000n, 300n, 201n], at: '2026-11-10T00:00:00.000Z' }),
      // u2 at Bob: Carol level 2.
      processed(u2, [bob, carol], { volume: '20', revenue: '0.5', paid: [500n, 100n], at: '2026-10-05T00:00:00.000Z' }),
      // u1 again, no terms: its volume counts at every level, but it is not payout-eligible.
      processed(u1, [alice, bob, carol], { volume: '7.25', revenue: '0.5', paid: [], at: '2026-11-11T00:00:00.000Z', status: 'no_terms' }),
    ];
    // Into the claim service's outbox, as its conversion job writes them: its relay delivers them to the agency.
    for (const event of events) {
      await stack.db.query(
        `INSERT INTO ${SERVICE_CATALOG.claim.schema}.outbox (id, type, project_id, payload, created_at) VALUES ($1, 'claim.conversion.processed', $2, $3, now())`,
        [randomUUID(), project.id, JSON.stringify(event)],
      );
    }
    stack.clock.set('2026-11-24T15:00:00.000Z');
    await pollUntil(
      async () => {
        const response = await stack.api.get(`/api/v1/projects/${project.id}/affiliates?q=Alice`, admin());
        const bobs = await stack.api.get(`/api/v1/projects/${project.id}/affiliates?q=Bob`, admin());
        return response.body.results?.[0]?.conversions === 2 && bobs.body.results?.[0]?.conversions === 1;
      },
      { timeoutMs: 15_000, intervalMs: 50, what: 'the projection to hold the three conversions' },
    );
  });
  afterAll(() => stack.stop());

  it('getAffiliatePaidVolumesByLevel: each level’s payout-eligible volume, revenue and attributions, over a range too', async () => {
    expect(await Fuul.getAffiliatePaidVolumesByLevel({ user_identifier: carol.identifier })).toEqual({
      user_identifier: carol.identifier,
      user_identifier_type: 'evm_address',
      payout_eligible_l1_volume: 0,
      payout_eligible_l2_volume: 20,
      payout_eligible_l3_volume: 100.5,
      payout_eligible_l4_volume: 0,
      payout_eligible_l1_revenue: 0,
      payout_eligible_l2_revenue: 0.5,
      payout_eligible_l3_revenue: 1.25,
      payout_eligible_l4_revenue: 0,
      payout_eligible_l1_attributions: 0,
      payout_eligible_l2_attributions: 1,
      payout_eligible_l3_attributions: 1,
      payout_eligible_l4_attributions: 0,
      payout_eligible_total_volume: 120.5,
      payout_eligible_total_revenue: 1.75,
      payout_eligible_total_attributions: 2,
    });
    expect(await Fuul.getAffiliatePaidVolumesByLevel({ user_identifier: bob.identifier })).toMatchObject({
      payout_eligible_l1_volume: 20,
      payout_eligible_l2_volume: 100.5,
      payout_eligible_l3_volume: 0,
      payout_eligible_total_volume: 120.5,
    });
    // November only: u2's October conversion (Carol's level 2) is out of the range.
    expect(await Fuul.getAffiliatePaidVolumesByLevel({ user_identifier: carol.identifier, from: '2026-11-01', to: '2026-11-30' })).toMatchObject({
      payout_eligible_l2_volume: 0,
      payout_eligible_l3_volume: 100.5,
      payout_eligible_total_attributions: 1,
    });
  });

  it('getAffiliateStats: r2..r4 volume (no_terms included), revenue and earnings per level', async () => {
    expect(await Fuul.getAffiliateStats({ user_identifier: carol.identifier })).toMatchObject({
      referred_volume: 0,
      r2_volume: 20,
      r3_volume: 107.75,
      r4_volume: 0,
      multilevel_volume: 127.75,
      r2_revenue: 0.5,
      r3_revenue: 1.75,
      r1_earnings: [],
      r2_earnings: [{ amount: 0.0001, currency: 'USDC' }],
      r3_earnings: [{ amount: 0.000201, currency: 'USDC' }],
      r4_earnings: [],
      total_earnings: [{ amount: 0.000301, currency: 'USDC' }],
      active_referred_users_r2: 1,
      active_referred_users_r3: 1,
    });
  });

  it('getStatsBreakdown: each bucket’s level 2 and 3 volume', async () => {
    const byMonth = await Fuul.getStatsBreakdown({ user_identifier: carol.identifier, group_by: 'month', from: '2026-10-01', to: '2026-11-24' });
    expect(byMonth.results.map((bucket) => [bucket.date, bucket.r1_volume, bucket.r2_volume, bucket.r3_volume])).toEqual([
      ['2026-10-01', 0, 20, 0],
      ['2026-11-01', 0, 0, 107.75],
    ]);
  });

  it('getReferralTree: the affiliate’s downline to four levels, each affiliate with its own figures', async () => {
    const node = (wallet: Wallet, traders: number, volume: number, revenue: number, children: unknown[]) => ({
      user_identifier: wallet.identifier,
      project_affiliate_id: ids.get(wallet),
      traders,
      total_volume: volume,
      total_revenue: revenue,
      children,
    });
    const daveNode = node(dave, 0, 0, 0, []);
    const aliceNode = node(alice, 1, 107.75, 1.75, [daveNode]);
    // Carol referred no user that converted; Bob's wallet is her only referred user, shown as the affiliate it is.
    expect(await Fuul.getReferralTree({ user_identifier: carol.identifier })).toEqual(node(carol, 0, 0, 0, [node(bob, 1, 20, 0.5, [aliceNode])]));
    // From Alice: her referred users (u1 converted, Dave did not, and is an affiliate), highest volume first.
    expect(await Fuul.getReferralTree({ user_identifier: alice.identifier })).toEqual({
      ...node(alice, 1, 107.75, 1.75, []),
      children: [
        { user_identifier: u1.identifier, project_affiliate_id: null, traders: 0, total_volume: 107.75, total_revenue: 1.75, children: [] },
        daveNode,
      ],
    });
  });

  it('the admin affiliate detail: its figures per level with the affiliates counted there, and its downline', async () => {
    const detail = await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${carol.identifier}`, admin());
    expect(detail.status).toBe(200);
    const tree = detail.body.referral_tree;
    expect(
      tree.levels.map((level: Record<string, unknown>) => [
        level.level,
        level.affiliates,
        level.volume_usd,
        level.conversions,
        (level.earnings as Array<{ amount: string }>).map((e) => e.amount),
      ]),
    ).toEqual([
      [1, 1, '0', 0, []],
      [2, 1, '20', 1, ['100']],
      [3, 1, '107.75', 2, ['201']],
      [4, 0, '0', 0, []],
    ]);
    expect(
      tree.nodes.map((n: Record<string, unknown>) => [n.level, n.affiliate_id, n.parent_affiliate_id, n.volume_usd, n.converting_users]),
    ).toEqual([
      [1, ids.get(bob), ids.get(carol), '20', 1],
      [2, ids.get(alice), ids.get(bob), '107.75', 1],
      [3, ids.get(dave), ids.get(alice), '0', 0],
    ]);
    expect(tree.truncated).toBe(false);
  });

  it('the wallet-session portal: the signed-in affiliate’s figures and earnings per level, all time', async () => {
    const inUsdc = (amount: string) => ({
      currency_address: usdc.address,
      currency_chain_id: 8453,
      currency_name: 'USDC',
      currency_decimals: 6,
      amount,
    });
    const stats = await stack.api.get(`/api/v1/projects/${project.id}/affiliate-portal/stats`, { key: await signIn(stack, carolWallet) });
    expect(stats.status).toBe(200);
    expect(stats.body.levels).toEqual([
      { level: 1, volume_usd: '0', revenue_usd: '0', conversions: 0, earnings: [] },
      { level: 2, volume_usd: '20', revenue_usd: '0.5', conversions: 1, earnings: [inUsdc('100')] },
      { level: 3, volume_usd: '107.75', revenue_usd: '1.75', conversions: 2, earnings: [inUsdc('201')] },
      { level: 4, volume_usd: '0', revenue_usd: '0', conversions: 0, earnings: [] },
    ]);
  });

  it('refuses a referral that would close a cycle through the SDK’s path too: 409 REFERRAL_CYCLE', async () => {
    const refused = await stack.api.post('/api/v1/referrals', {
      key: project.keys.service,
      body: { user_identifier: carol.identifier, user_identifier_type: 'evm_address', code: code(dave) },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('REFERRAL_CYCLE');
  });
});
