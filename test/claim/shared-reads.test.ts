import { startStackWithProject, type TestProject } from '../helpers/fixtures';
import { sharedReadProbe } from '../helpers/shared-reads';
import type { TestStack } from '../helpers/stack';
import { conversionBody, createCurrency, evmUser, putTerms, settled } from './claim-fixtures';

/**
 * The two hot reads of the claim service through the gateway: a leaderboard page is a
 * snapshot of at most CLAIM_LEADERBOARD_CACHE_MS (`calculated_at` says its age) that concurrent
 * readers share, and concurrent identical claim-check lists share reads that each begin after
 * every request they answer arrived. Queries are counted where they wait: behind a table lock.
 */
describe('shared reads of the leaderboard and the claim-check list', () => {
  let stack: TestStack;
  let project: TestProject;
  let currency: { id: string; address: string };
  const first = evmUser();
  const second = evmUser();

  let sharedReads: ReturnType<typeof sharedReadProbe>['sharedReads'];
  let fiftyBehindLock: ReturnType<typeof sharedReadProbe>['fiftyBehindLock'];

  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject({ serviceEnv: { claim: { CLAIM_LEADERBOARD_CACHE_MS: '1000' } } }));
    ({ sharedReads, fiftyBehindLock } = sharedReadProbe(stack));
    currency = await createCurrency(stack, project);
    await putTerms(stack, project, 'trade', { currency_id: currency.id, end_user: { bps: 50 } });
    await pay(first, '100000');
  });
  afterAll(() => stack.stop());

  async function pay(user: { identifier: string; identifier_type: string }, rewardBase: string) {
    const body = conversionBody({ user, reward_base: rewardBase });
    const accepted = await stack.api.post('/api/v1/conversions', { key: project.keys.service, body });
    expect(accepted.status).toBe(202);
    await settled(stack, project, body.id);
  }

  const boardPath = (pageSize = 25) =>
    `/api/v1/payouts/leaderboard/payouts?currency_address=${currency.address}&user_type=end_user&page=1&page_size=${pageSize}`;
  const board = async (pageSize?: number) => {
    const response = await stack.api.get(boardPath(pageSize), { key: project.keys.readOnly });
    expect(response.status).toBe(200);
    return response.body as { results: Array<{ user_identifier: string; total_amount_base_units: string }>; calculated_at: string };
  };
  const ranking = (page: Awaited<ReturnType<typeof board>>) => page.results.map((entry) => [entry.user_identifier, entry.total_amount_base_units]);

  it('answers a leaderboard page read less than CLAIM_LEADERBOARD_CACHE_MS ago, saying when it was read, and shows a new movement after that', async () => {
    const before = await board();
    expect(ranking(before)).toEqual([[first.identifier, '500']]);
    expect(before.calculated_at).toBe(stack.clock.now().toISOString());

    await pay(second, '300000');
    stack.clock.advance(999);
    const kept = await board();
    expect(ranking(kept)).toEqual([[first.identifier, '500']]);
    expect(kept.calculated_at).toBe(before.calculated_at);

    stack.clock.advance(1);
    const fresh = await board();
    expect(ranking(fresh)).toEqual([
      [second.identifier, '1500'],
      [first.identifier, '500'],
    ]);
    expect(fresh.calculated_at).toBe(stack.clock.now().toISOString());
  });

  it('reads a page once for 50 concurrent identical requests', async () => {
    // A page size of its own: no snapshot of it is kept yet, here or in the claim service.
    const { answers: pages, start } = await fiftyBehindLock('claim.leaderboard_totals', 'leaderboard_page', () => board(7));
    for (const page of pages) expect(page).toEqual(pages[0]);
    expect(ranking(pages[0]!)).toEqual([
      [second.identifier, '1500'],
      [first.identifier, '500'],
    ]);
    const end = await sharedReads('leaderboard_page');
    expect(end.computed - start.computed).toBe(1);
  });

  it('reads a claim-check list at most twice for 50 concurrent identical requests, and a read after a payment shows it', async () => {
    const listPath = `/api/v1/claim-checks?user_identifier=${first.identifier}&user_identifier_type=evm_address`;
    const list = async () => {
      const response = await stack.api.get(listPath, { key: project.keys.readOnly });
      expect(response.status).toBe(200);
      return response.body as { results: Array<{ amount: string }>; claim_checks: unknown[] };
    };
    expect((await list()).results.map((check) => check.amount)).toEqual(['500']);

    // The first request's read waits for the lock; the other 49 wait for it to finish, then read once together.
    const { answers, start } = await fiftyBehindLock('claim.claim_checks', 'claim_check_list', list);
    for (const answer of answers) {
      expect(answer.results.map((check) => check.amount)).toEqual(['500']);
      expect(answer.claim_checks).toEqual(answer.results);
    }
    const end = await sharedReads('claim_check_list');
    expect(end.computed - start.computed).toBe(2);

    // Nothing is kept: the next read after a payment shows it.
    await pay(first, '100000');
    expect((await list()).results.map((check) => check.amount)).toEqual(['1000']);
  });
});
