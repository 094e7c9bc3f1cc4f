import { ClaimCheckStatus, Fuul, UserIdentifierType } from '@fuul/sdk';
import { initFuulSdk } from '../helpers/fuul-sdk';
import { randomEvmAddress } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';
import {
  type ClaimChain,
  type ClaimProject,
  type ClaimResponse,
  claimProject,
  CONFIRMATIONS,
  earn,
  startClaimStack,
  TTL_SECONDS,
} from './claim-check-stack';

/**
 * The published Fuul SDK (7.41.0) on the claim-check endpoints: getClaimChecks, closeClaimChecks,
 * getClaimableChecks, getClaimCheckTotals and getClaimHistory send their paths, query names, camelCase
 * bodies and key as the SDK does, and read our answers; the vouchers it hands back are redeemed on
 * ClaimManager as a wallet would. The SDK keeps one global configuration: one file holds these calls.
 */
describe('the Fuul SDK on the claim-check endpoints', () => {
  let stack: TestStack;
  let claimChain: ClaimChain;
  let project: ClaimProject;
  const user = randomEvmAddress();
  const who = { user_identifier: user, user_identifier_type: UserIdentifierType.EvmAddress };

  beforeAll(async () => {
    ({ stack, claimChain } = await startClaimStack());
    project = await claimProject(stack, claimChain);
    await earn(stack, project, user, 100_000);
    initFuulSdk(stack, project.keys.service);
  });
  afterAll(async () => {
    await stack?.stop();
    await claimChain?.chain.stop();
  });
  beforeEach(async () => stack.clock.set(new Date(Number(await claimChain.chain.timestamp()) * 1000)));

  it('getClaimChecks reads the user’s checks under claim_checks, filtered by status', async () => {
    const all = await Fuul.getClaimChecks(who);
    expect(all.claim_checks).toEqual([
      expect.objectContaining({
        currency_address: claimChain.token.toLowerCase(),
        currency_chain_id: String(claimChain.chain.chainId),
        currency_name: 'TUSD',
        currency_decimals: 6,
        reason: 'end_user_payout',
        amount: '1000',
        status: 'open',
      }),
    ]);
    expect((await Fuul.getClaimChecks({ ...who, status: ClaimCheckStatus.Open })).claim_checks).toHaveLength(1);
    expect((await Fuul.getClaimChecks({ ...who, status: ClaimCheckStatus.Unclaimed })).claim_checks).toEqual([]);
  });

  it('closeClaimChecks answers vouchers a wallet redeems; getClaimableChecks offers them until then; totals and history follow the chain', async () => {
    const [open] = (await Fuul.getClaimChecks({ ...who, status: ClaimCheckStatus.Open })).claim_checks;
    const vouchers = await Fuul.closeClaimChecks({ ...who, claim_check_ids: [open!.id] });
    expect(vouchers).toEqual([
      expect.objectContaining({
        to: user,
        currency: claimChain.token.toLowerCase(),
        currency_type: 1,
        amount: '1000',
        reason: 1,
        token_id: '0',
        deadline: Math.floor(stack.clock.now().getTime() / 1000) + TTL_SECONDS,
        proof: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      }),
    ]);
    expect(await Fuul.closeClaimChecks({ ...who, claim_check_ids: [open!.id] })).toEqual(vouchers);
    expect(await Fuul.getClaimableChecks(who)).toEqual(vouchers);
    expect(await Fuul.getClaimCheckTotals(who)).toEqual({
      claimed: [],
      unclaimed: [expect.objectContaining({ amount: '1000', currency_decimals: 6 })],
      pending: [],
      debt: [],
    });

    // A second check, closed and redeemed in a transaction of its own: two rows of history.
    await earn(stack, project, user, 50_000);
    const [second] = (await Fuul.getClaimChecks({ ...who, status: ClaimCheckStatus.Open })).claim_checks;
    const more = await Fuul.closeClaimChecks({ ...who, claim_check_ids: [second!.id] });
    const first = await claimChain.redeem(vouchers as unknown as ClaimResponse[]);
    const later = await claimChain.redeem(more as unknown as ClaimResponse[]);
    expect(await claimChain.balanceOf(user)).toBe(1_500n);
    await claimChain.chain.mine(CONFIRMATIONS);
    await pollUntil(async () => (await Fuul.getClaimableChecks(who)).length === 0 && (await Fuul.getClaimCheckTotals(who)).claimed.length === 1, {
      timeoutMs: 15_000,
      what: 'the watcher to mark both vouchers claimed',
    });
    expect(await Fuul.getClaimCheckTotals(who)).toEqual({
      claimed: [expect.objectContaining({ amount: '1500' })],
      unclaimed: [],
      pending: [],
      debt: [],
    });

    const page1 = await Fuul.getClaimHistory({ ...who, page: 1, page_size: 1 });
    expect(page1).toEqual({
      results: [expect.objectContaining({ hash: later.transactionHash, amount: '500', currency_name: 'TUSD' })],
      total_count: 2,
      next_page: 2,
    });
    const page2 = await Fuul.getClaimHistory({ ...who, page: 2, page_size: 1 });
    expect(page2).toEqual({ results: [expect.objectContaining({ hash: first.transactionHash, amount: '1000' })], total_count: 2, next_page: null });
    expect((await Fuul.getClaimChecks({ ...who, status: ClaimCheckStatus.Claimed })).claim_checks).toHaveLength(2);
  });
});
