import { newAffiliate } from '../claim/claim-check-stack';
import { startStackWithProject, type TestProject } from '../helpers/fixtures';
import { setAffiliateVolume, sharedReadProbe } from '../helpers/shared-reads';
import type { TestStack } from '../helpers/stack';

/**
 * The agency's boards and its affiliate list through the gateway stay current under load: identical
 * page requests (and identical referred-volume requests) that overlap share one read, begun after each
 * of them arrived, and nothing is kept once it is given out. Reads are counted where they wait: behind a
 * lock on the metrics projection, which the boards and the list's rows read.
 */
describe('shared reads of the volume, revenue and referred-users boards, of referred volumes and of the affiliate list', () => {
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

  const listByVolume = async (pageSize = 9) => {
    const response = await stack.api.get(`/api/v1/projects/${project.id}/affiliates?sort_by=volume_usd&page=1&page_size=${pageSize}`, {
      key: project.keys.readOnly,
    });
    expect(response.status).toBe(200);
    return response.body as { results: Array<{ identifier: string; volume_usd: string }>; total_results: number; page_size: number };
  };

  it('reads a page of the affiliate list at most twice for 50 concurrent identical requests, and a read after a change shows it', async () => {
    await setVolume('12.5');
    // The first request's read waits for the lock; the other 49 wait for it to finish, then read once together.
    const { answers, start } = await probe.fiftyBehindLock('agency.affiliate_metrics', 'affiliate_list', () => listByVolume());
    for (const answer of answers) {
      expect(answer.results.map((item) => [item.identifier, item.volume_usd])).toEqual([[affiliate.identifier, '12.5']]);
      expect(answer.total_results).toBe(1);
    }
    const end = await probe.sharedReads('affiliate_list');
    expect(end.computed - start.computed).toBe(2);

    // Nothing is kept: the next read shows the new figure.
    await setVolume('20');
    expect((await listByVolume()).results.map((item) => item.volume_usd)).toEqual(['20']);
  });

  it('shares a read only between identical requests: two page sizes asked at once are read apart, each answered its own', async () => {
    // One read per page size waits on the lock.
    const { answers, start } = await probe.behindLock(
      'agency.affiliate_metrics',
      'affiliate_list',
      Array.from({ length: 20 }, (_, index) => async () => {
        const asked = index % 2 === 0 ? 9 : 10;
        return { asked, answered: (await listByVolume(asked)).page_size };
      }),
      2,
    );
    for (const { asked, answered } of answers) expect(answered).toBe(asked);
    const end = await probe.sharedReads('affiliate_list');
    // Per page size, the read that waited on the lock and the one its followers shared.
    expect(end.computed - start.computed).toBe(4);
  });
});
