import { newAffiliate } from '../claim/claim-check-stack';
import { startStackWithProject, type TestProject } from '../helpers/fixtures';
import { setAffiliateVolume, sharedReadProbe } from '../helpers/shared-reads';
import type { TestStack } from '../helpers/stack';

/**
 * The agency's boards through the gateway stay current under load: identical page requests (and
 * identical referred-volume requests) that overlap share one read, begun after each of them arrived, and
 * nothing is kept once it is given out. Reads are counted where they wait: behind a lock on the projection.
 */
describe('shared reads of the volume, revenue and referred-users boards and of referred volumes', () => {
  let stack: TestStack;
  let project: TestProject;
  let probe: ReturnType<typeof sharedReadProbe>;
  let affiliate: { identifier: string; code: string };

  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    probe = sharedReadProbe(stack);
    affiliate = await newAffiliate(stack, project);
    await setVolume('12.5');
  });
  afterAll(() => stack.stop());

  const setVolume = (volume: string) => setAffiliateVolume(stack, project.id, affiliate.identifier, volume);

  const volumeBoard = async () => {
    const response = await stack.api.get('/api/v1/payouts/leaderboard/volume?user_type=affiliate&page=1&page_size=9', { key: project.keys.readOnly });
    expect(response.status).toBe(200);
    return response.body as { results: Array<{ user_identifier: string; total_amount: string; affiliate_code: string }>; total_results: number };
  };
  const referredVolume = async () => {
    const response = await stack.api.get(`/api/v1/payouts/leaderboard/referred-volume?user_identifiers=${affiliate.identifier}`, {
      key: project.keys.readOnly,
    });
    expect(response.status).toBe(200);
    return response.body as { referred_volumes: Array<{ user_identifier: string; referred_volume: number }> };
  };

  it('reads a board page at most twice for 50 concurrent identical requests, and a read after a change shows it', async () => {
    // The first request's read waits for the lock; the other 49 wait for it to finish, then read once together.
    const { answers, start } = await probe.fiftyBehindLock('agency.affiliate_metrics', 'affiliate_leaderboard_page', volumeBoard);
    for (const answer of answers) {
      expect(answer.results.map((entry) => [entry.user_identifier, entry.total_amount, entry.affiliate_code])).toEqual([
        [affiliate.identifier, '12.5', affiliate.code],
      ]);
      expect(answer.total_results).toBe(1);
    }
    const end = await probe.sharedReads('affiliate_leaderboard_page');
    expect(end.computed - start.computed).toBe(2);

    // Nothing is kept: the next read shows the new figure.
    await setVolume('20');
    expect((await volumeBoard()).results.map((entry) => entry.total_amount)).toEqual(['20']);
  });

  it('reads referred volumes at most twice for 50 concurrent identical requests, and a read after a change shows it', async () => {
    await setVolume('7.25');
    const { answers, start } = await probe.fiftyBehindLock('agency.affiliate_metrics', 'referred_volumes', referredVolume);
    for (const answer of answers) expect(answer.referred_volumes).toEqual([{ user_identifier: affiliate.identifier, referred_volume: 7.25 }]);
    const end = await probe.sharedReads('referred_volumes');
    expect(end.computed - start.computed).toBe(2);

    await setVolume('8');
    expect((await referredVolume()).referred_volumes).toEqual([{ user_identifier: affiliate.identifier, referred_volume: 8 }]);
  });
});
