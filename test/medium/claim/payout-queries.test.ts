import type { PayoutTermsInput } from '../../../services/claim/domain/payout-terms.service';
import { type ClaimHarness, startClaimDomain } from '../../helpers/claim-domain';
import { batchOf, conversion, newAffiliate, newProject, newUser, refer, termsInput } from './fixtures';

const KEY = 'key-admin-payout-queries';
const PAGE = { page: 1, pageSize: 25, offset: 0 };

/**
 * The ledger's reads behind the Fuul SDK's payouts queries (LedgerService.payoutSums and
 * referredUsers): sums net of reversals, declined movements left out, each read narrowed to its
 * window, and an affiliate's referred users from the conversions attributed to it alone.
 */
describe('payouts per conversion name and per referred user (domain)', () => {
  let harness: ClaimHarness;
  beforeAll(async () => {
    harness = await startClaimDomain();
  });
  afterAll(() => harness.stop());

  async function project(terms: Record<string, Partial<PayoutTermsInput>>) {
    const created = await newProject(harness);
    for (const [name, fields] of Object.entries(terms)) {
      await harness.domain.terms.put(created.projectId, name, termsInput(created.currencyId, fields));
    }
    return created;
  }

  async function pay(projectId: string, inputs: Array<ReturnType<typeof conversion>>) {
    await harness.domain.conversions.submitMany(projectId, inputs);
    await harness.domain.payouts.payBatch(await batchOf(harness, projectId, inputs[0]!.id));
  }

  it('sums per conversion name, side and currency, net of reversals, without declined movements, within the window', async () => {
    const { projectId } = await project({
      trade: { endUser: { fixed: '100' }, affiliate: { bps: 1_000 } },
      swap: { endUser: { fixed: '7' }, requireApproval: true },
    });
    const affiliate = newAffiliate(harness, projectId);
    const user = newUser();
    refer(harness, projectId, user, affiliate.code);
    const first = conversion({ user, rewardBase: '10000' });
    const swapped = conversion({ user, name: 'swap' });
    await pay(projectId, [first, swapped]);
    await harness.domain.decisions.decline(projectId, [swapped.id], 'refunded', KEY);
    await harness.domain.reversals.reverse(projectId, {
      conversionId: first.id,
      reversalId: 'r-1',
      reason: 'partial refund',
      shareBps: 5_000,
      reversedBy: KEY,
    });
    const start = harness.clock.now();
    harness.clock.advance(60_000);
    await pay(projectId, [conversion({ user, rewardBase: '20000' })]);

    const sums = async (who: { identifier: string; identifierType: string }, from?: Date, to?: Date) =>
      (await harness.domain.ledger.payoutSums(projectId, who, { from, to }, PAGE)).records.map((record) => [
        record.conversionName,
        record.isReferrer,
        record.total.toString(),
      ]);
    // 100 halved, then 100; the declined swap counts nothing (and no group).
    expect(await sums(user)).toEqual([['trade', false, '150']]);
    // 1,000 halved, then 2,000.
    expect(await sums(affiliate.user)).toEqual([['trade', true, '2500']]);
    expect(await sums(affiliate.user, undefined, new Date(start.getTime() + 1))).toEqual([['trade', true, '500']]);
    expect(await sums(affiliate.user, new Date(start.getTime() + 1))).toEqual([['trade', true, '2000']]);
    await expect(harness.domain.ledger.payoutSums(projectId, user, { from: start, to: start }, PAGE)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });

  it('lists an affiliate’s referred users from the conversions attributed to it: volume in the window, earnings net, first conversion all time', async () => {
    const { projectId } = await project({ trade: { affiliate: { bps: 1_000 } } });
    const affiliate = newAffiliate(harness, projectId);
    const other = newAffiliate(harness, projectId);
    const [alice, bob, carol] = [newUser(), newUser(), newUser()];
    refer(harness, projectId, alice, affiliate.code);
    refer(harness, projectId, bob, affiliate.code);
    refer(harness, projectId, carol, other.code);
    const joined = harness.clock.now();
    await pay(projectId, [
      conversion({ user: alice, rewardBase: '10000', volumeUsd: '12.5' }),
      // No terms for this name: its volume counts, it pays nothing.
      conversion({ user: bob, name: 'unpaid', volumeUsd: '3' }),
      conversion({ user: carol, rewardBase: '10000', volumeUsd: '99' }),
    ]);
    harness.clock.advance(86_400_000);
    await pay(projectId, [conversion({ user: alice, rewardBase: '30000', volumeUsd: '7.5' })]);

    const referred = async (from?: Date, to?: Date) =>
      (await harness.domain.ledger.referredUsers(projectId, affiliate.user, { from, to })).map((record) => ({
        user: record.user.identifier,
        volume: Number(record.volumeUsd),
        earnings: record.earnings.map((earning) => earning.amount.toString()),
        first: record.firstConversionAt.toISOString(),
      }));
    const byIdentifier = <T extends { user: string }>(list: T[]) => [...list].sort((a, b) => (a.user < b.user ? -1 : 1));
    expect(await referred()).toEqual(
      byIdentifier([
        { user: alice.identifier, volume: 20, earnings: ['4000'], first: joined.toISOString() },
        { user: bob.identifier, volume: 3, earnings: [], first: joined.toISOString() },
      ]),
    );
    // The first day only: alice's later trade is out of the window, her first conversion is not.
    expect(await referred(joined, new Date(joined.getTime() + 1))).toEqual(
      byIdentifier([
        { user: alice.identifier, volume: 12.5, earnings: ['1000'], first: joined.toISOString() },
        { user: bob.identifier, volume: 3, earnings: [], first: joined.toISOString() },
      ]),
    );
    expect(await harness.domain.ledger.referredUsers(projectId, newUser(), {})).toEqual([]);
  });
});
