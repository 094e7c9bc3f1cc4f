import { Fuul, UserIdentifierType } from '@fuul/sdk';
import { initFuulSdk } from '../helpers/fuul-sdk';
import { startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';
import { conversionBody, createCurrency, evmUser, putTerms, sendSettledConversions } from './claim-fixtures';

/**
 * The published Fuul SDK (7.41.0) against our gateway: getPayoutsLeaderboard and
 * getUserPayoutMovements send their paths, query names and key as the SDK does, and read our answers.
 * The SDK keeps one global configuration, so one test file holds every SDK call of the ledger.
 */
describe('the Fuul SDK on the payouts endpoints', () => {
  let stack: TestStack;
  let project: TestProject;
  let currency: { id: string; address: string };
  const users = [evmUser(), evmUser()];
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    currency = await createCurrency(stack, project);
    await putTerms(stack, project, 'trade', { currency_id: currency.id, end_user: { bps: 50 } });
    const bodies = [
      conversionBody({ user: users[0], reward_base: '100000' }),
      conversionBody({ user: users[1], reward_base: '300000' }),
      conversionBody({ user: users[1], reward_base: '1000' }),
    ];
    await sendSettledConversions(stack, project, bodies);
    initFuulSdk(stack, project.keys.readOnly);
  });
  afterAll(() => stack.stop());

  it('getPayoutsLeaderboard reads the end users ranked by what they earned', async () => {
    const board = await Fuul.getPayoutsLeaderboard({ currency_address: currency.address, user_type: 'end_user', page: 1, page_size: 10 });
    expect(board.total_results).toBe(2);
    expect(board.results.map((entry) => [entry.rank, entry.user_identifier, entry.total_amount, entry.total_attributions, entry.chain_id])).toEqual([
      [1, users[1]!.identifier, 0.001505, 2, '8453'],
      [2, users[0]!.identifier, 0.0005, 1, '8453'],
    ]);
    expect(new Date(board.calculated_at).toISOString()).toBe(board.calculated_at);
  });

  it('getPayoutsLeaderboard with a user answers that user’s entry and rank', async () => {
    const board = await Fuul.getPayoutsLeaderboard({
      user_type: 'end_user',
      user_identifier: users[0]!.identifier,
      identifier_type: UserIdentifierType.EvmAddress,
    });
    expect(board.results).toEqual([expect.objectContaining({ rank: 2, address: users[0]!.identifier, total_amount: 0.0005 })]);
  });

  it('getUserPayoutMovements reads a user’s movements, newest first', async () => {
    const movements = await Fuul.getUserPayoutMovements({
      user_identifier: users[1]!.identifier,
      identifier_type: UserIdentifierType.EvmAddress,
      page: 1,
      page_size: 5,
    });
    expect(movements).toMatchObject({ total_results: 2, page: 1, page_size: 5 });
    expect(
      movements.results.map((movement) => [
        movement.is_referrer,
        movement.conversion_name,
        movement.currency_address,
        movement.chain_id,
        movement.payout_status,
      ]),
    ).toEqual([
      [false, 'trade', currency.address, 8453, 'open'],
      [false, 'trade', currency.address, 8453, 'open'],
    ]);
    expect(movements.results.map((movement) => movement.total_amount).sort()).toEqual(['1500', '5']);
  });
});
