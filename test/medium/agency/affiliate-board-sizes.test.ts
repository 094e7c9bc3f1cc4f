import { randomUUID } from 'node:crypto';
import type { PaidConversionSource } from '../../../services/agency/domain/affiliate-metrics.service';
import { conversionFact, reversalFact } from '../../../services/agency/jobs/affiliate-metrics.consumer';
import type { ConversionFact, ReversalFact } from '../../../services/agency/repositories/affiliate-metrics.repository';
import type { AffiliateRecord } from '../../../services/agency/repositories/affiliate-record';
import type { EventPayload } from '../../../services/platform/events/contracts';
import { startAgencyDomain } from '../../helpers/agency-domain';
import { useDomainHarness } from '../../helpers/domain';
import { randomEvmAddress } from '../../helpers/evm-addresses';
import { reversalEvent } from '../../helpers/conversion-events';
import { metricsDelivery } from './metrics-events';
import { newAffiliate, newProject, newUser } from './program-fixtures';

type Processed = EventPayload<'claim.conversion.processed'>;
type Reversed = EventPayload<'claim.conversion.reversed'>;
type User = { identifier: string; identifierType: string };
type Sizes = { volume: number; revenue: number; referred_users: number };

const asUser = (user: User) => ({ identifier: user.identifier, identifier_type: user.identifierType as 'evm_address' });
const OCCURRED = '2026-11-21T12:00:00.000Z';
const METRICS = ['volume', 'revenue', 'referred_users'] as const;

/**
 * The affiliates' boards' kept sizes (0025's affiliate_board_sizes, which a board's page reads instead of
 * counting its entries): after every path that writes the metrics (referrals, conversions delivered at once,
 * replays, partial and full reversals, a rebuild, a direct write that crosses zero and back in one
 * transaction) each equals count(*) of its board, the number the boards' pages say.
 */
describe('affiliate board sizes (kept count, domain)', () => {
  const paid = new Map<string, ConversionFact[]>();
  const reversalsOf = new Map<string, ReversalFact[]>();
  const usdc = { id: randomUUID(), chainId: '8453', address: randomEvmAddress(), name: 'USDC', decimals: 6 };
  const source: PaidConversionSource = {
    page: async (projectId, afterId, limit) => {
      const all = [...(paid.get(projectId) ?? [])].sort((a, b) => (a.conversionId < b.conversionId ? -1 : 1));
      const facts = all.filter((fact) => afterId === null || fact.conversionId > afterId).slice(0, limit);
      const reversals = facts.flatMap((fact) => reversalsOf.get(fact.conversionId) ?? []);
      return {
        facts,
        reversals,
        currencies: facts.length > 0 ? [usdc] : [],
        nextAfterId: facts.length === limit ? facts.at(-1)!.conversionId : null,
      };
    },
  };

  const harness = useDomainHarness(() => startAgencyDomain({ paidConversions: source }));

  const deliver = metricsDelivery(harness);

  function conversion(projectId: string, affiliate: AffiliateRecord, volume: string, revenue: string): Processed {
    const user = newUser();
    const payload: Processed = {
      conversion_id: `conv-${randomUUID()}`,
      name: 'trade',
      status: 'processed',
      occurred_at: OCCURRED,
      user: asUser(user),
      affiliate: { id: affiliate.id, user: asUser(affiliate.user) },
      master: null,
      tier_id: null,
      volume_usd: volume,
      revenue_usd: revenue,
      currency_id: usdc.id,
      currency: { id: usdc.id, chain_id: usdc.chainId, address: usdc.address, name: usdc.name, decimals: usdc.decimals },
      payouts: [{ kind: 'affiliate_payout', user: asUser(affiliate.user), amount: '1000' }],
    };
    paid.set(projectId, [...(paid.get(projectId) ?? []), conversionFact(payload)]);
    return payload;
  }

  function reversal(converted: Processed, shareBps: number, volume: string, revenue: string): Reversed {
    const payload = reversalEvent(converted, shareBps, { volume, revenue });
    reversalsOf.set(converted.conversion_id, [...(reversalsOf.get(converted.conversion_id) ?? []), reversalFact(payload)]);
    return payload;
  }

  /** The kept sizes (a board without a row is empty). */
  const kept = async (projectId: string): Promise<Sizes> => {
    const { rows } = await harness.sql.query<{ metric: keyof Sizes; entries: string }>(
      'SELECT metric, entries FROM agency.affiliate_board_sizes WHERE project_id = $1',
      [projectId],
    );
    const sizes: Sizes = { volume: 0, revenue: 0, referred_users: 0 };
    for (const row of rows) sizes[row.metric] = Number(row.entries);
    return sizes;
  };
  /** The boards counted from the metrics (what a page counted before 0025). */
  const counted = async (projectId: string): Promise<Sizes> => {
    const { rows } = await harness.sql.query<Sizes>(
      `SELECT count(*) FILTER (WHERE volume_usd > 0)::int AS volume, count(*) FILTER (WHERE revenue_usd > 0)::int AS revenue,
              count(*) FILTER (WHERE end_users > 0)::int AS referred_users
       FROM agency.affiliate_metrics WHERE project_id = $1`,
      [projectId],
    );
    return rows[0]!;
  };
  /** The kept sizes, checked against the count and against what each board's page says. */
  const sizes = async (projectId: string): Promise<Sizes> => {
    const sizes = await kept(projectId);
    expect(sizes).toEqual(await counted(projectId));
    for (const metric of METRICS) {
      const page = await harness.domain.leaderboards.page(
        projectId,
        { metric, userType: 'affiliate', user: undefined },
        { page: 1, pageSize: 10, offset: 0 },
      );
      expect(page.total).toBe(sizes[metric]);
    }
    return sizes;
  };

  it('equals count(*) of each board through referrals, concurrent conversions, replays, reversals and a rebuild', async () => {
    const projectId = newProject();
    const [alice, bob, carol, dave] = [
      await newAffiliate(harness, projectId),
      await newAffiliate(harness, projectId),
      await newAffiliate(harness, projectId),
      await newAffiliate(harness, projectId),
    ];
    expect(await sizes(projectId)).toEqual({ volume: 0, revenue: 0, referred_users: 0 });

    const code = (affiliate: AffiliateRecord) => affiliate.codes[0]!.code;
    for (const referrer of [alice, alice, bob]) await harness.domain.referrals.refer(projectId, newUser(), code(referrer));
    expect(await sizes(projectId)).toEqual({ volume: 0, revenue: 0, referred_users: 2 });

    // Delivered at once, as the job's workers do: each crosses zero (the size rows are hot), none deadlocks.
    const conversions = [
      conversion(projectId, alice, '10', '1'),
      conversion(projectId, alice, '4', '0'),
      conversion(projectId, bob, '5', '0'),
      conversion(projectId, carol, '2.5', '0.25'),
    ];
    expect(await Promise.all(conversions.map((payload) => deliver(projectId, 'claim.conversion.processed', payload)))).toEqual([
      'handled',
      'handled',
      'handled',
      'handled',
    ]);
    expect(await sizes(projectId)).toEqual({ volume: 3, revenue: 2, referred_users: 2 });

    // Replays: the same event again and at once; another event of the same conversion. Nothing counted twice.
    const id = randomUUID();
    const dave1 = conversion(projectId, dave, '1', '1');
    expect(await deliver(projectId, 'claim.conversion.processed', dave1, id)).toBe('handled');
    expect(
      await Promise.all([deliver(projectId, 'claim.conversion.processed', dave1, id), deliver(projectId, 'claim.conversion.processed', dave1, id)]),
    ).toEqual(['duplicate', 'duplicate']);
    await deliver(projectId, 'claim.conversion.processed', dave1);
    expect(await sizes(projectId)).toEqual({ volume: 4, revenue: 3, referred_users: 2 });

    // A partial reversal leaves carol on both boards; full reversals take bob off volume and dave off both.
    expect(await deliver(projectId, 'claim.conversion.reversed', reversal(conversions[3]!, 5_000, '1.25', '0.125'))).toBe('handled');
    expect(await deliver(projectId, 'claim.conversion.reversed', reversal(conversions[2]!, 10_000, '5', '0'))).toBe('handled');
    const daveBack = reversal(dave1, 10_000, '1', '1');
    expect(await deliver(projectId, 'claim.conversion.reversed', daveBack)).toBe('handled');
    // Its replay under another event id takes nothing twice (the size must not go to 2 on volume).
    await deliver(projectId, 'claim.conversion.reversed', daveBack);
    expect(await sizes(projectId)).toEqual({ volume: 2, revenue: 2, referred_users: 2 });

    // A rebuild recomputes every row (zeroing, then summing): the sizes end where the count is.
    await harness.sql.query('UPDATE agency.affiliate_metrics SET volume_usd = 0, revenue_usd = 0, end_users = 0 WHERE project_id = $1', [projectId]);
    expect(await sizes(projectId)).toEqual({ volume: 0, revenue: 0, referred_users: 0 });
    await harness.domain.metrics.rebuild(projectId);
    expect(await sizes(projectId)).toEqual({ volume: 2, revenue: 2, referred_users: 2 });
  });

  it('counts a row crossing zero and back in one transaction once each way, and keeps projects apart', async () => {
    const [projectId, other] = [newProject(), newProject()];
    const affiliate = await newAffiliate(harness, projectId);
    const bystander = await newAffiliate(harness, other);
    await harness.sql.query('UPDATE agency.affiliate_metrics SET volume_usd = 3 WHERE affiliate_id = $1', [bystander.id]);
    const client = await harness.sql.connect();
    try {
      await client.query('BEGIN');
      await client.query('UPDATE agency.affiliate_metrics SET volume_usd = 5, end_users = 1 WHERE affiliate_id = $1', [affiliate.id]);
      await client.query('UPDATE agency.affiliate_metrics SET volume_usd = 0 WHERE affiliate_id = $1', [affiliate.id]);
      await client.query('UPDATE agency.affiliate_metrics SET volume_usd = 7 WHERE affiliate_id = $1', [affiliate.id]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    expect(await sizes(projectId)).toEqual({ volume: 1, revenue: 0, referred_users: 1 });
    expect(await sizes(other)).toEqual({ volume: 1, revenue: 0, referred_users: 0 });
  });
});
