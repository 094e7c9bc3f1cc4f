import { randomUUID } from 'node:crypto';
import type { ClaimDatabase } from '../../../services/claim/database';
import type { ReviewSettingsInput } from '../../../services/claim/domain/review.service';
import { affiliateUnflags } from '../../../services/claim/jobs/affiliate-unflags.consumer';
import type { EventType } from '../../../services/platform/events/contracts';
import type { EventConsumer } from '../../../services/platform/outbox/consumer';
import { startClaimDomain } from '../../helpers/claim-domain';
import { deliverTo, eventNow, useDomainHarness } from '../../helpers/domain';
import { batchOf, conversion, movementStatesOf, newAffiliate, newProject, newUser, pay, refer, termsInput } from './fixtures';

const MINUTE = 60_000;
const DAY = 86_400_000;
const KEY = 'key-admin-1';
const PAGE = { page: 1, offset: 0, pageSize: 50 };

/**
 * The review rules and flagged affiliates on the payment path (docs/claims.md#review-rules): a
 * conversion that breaks a rule enters the review queue in the payment's transaction and all its
 * movements wait for `review` (over approval and hold); a flagged affiliate's and its master's
 * movements wait while the end user's follow the terms; approve and decline decide the movements
 * and the queue's row together; an unflag (the agency's status event) lets the movements that waited
 * for the flag go on, not those of a broken rule; with every rule off and nobody flagged, payments are
 * as before.
 */
describe('review rules and flagged affiliates on the payment path (domain)', () => {
  const harness = useDomainHarness(() => startClaimDomain());
  beforeAll(() => harness.clock.set('2026-11-21T12:00:00.000Z'));

  /** `trade` pays the end user 1% and the referring affiliate 10% (a master its spread), under these hold, approval and review settings. */
  async function project(options: { holdDays?: number; requireApproval?: boolean; review?: ReviewSettingsInput } = {}) {
    const created = await newProject(harness);
    await harness.domain.terms.put(
      created.projectId,
      'trade',
      termsInput(created.currencyId, {
        endUser: { bps: 100 },
        affiliate: { bps: 1_000 },
        holdDays: options.holdDays ?? 0,
        requireApproval: options.requireApproval ?? false,
      }),
    );
    if (options.review) await harness.domain.review.updateSettings(created.projectId, options.review);
    return created;
  }

  const movements = (projectId: string) => movementStatesOf(harness, projectId);
  const statesOf = async (projectId: string, conversionId: string) =>
    (await movements(projectId)).filter((row) => row.conversion_id === conversionId).map((row) => [row.kind, row.status, row.pending_reason]);
  const queue = async (projectId: string) => (await harness.domain.review.list(projectId, {}, PAGE)).records;

  /** An affiliate bound to a master (a 5% spread) and flagged, and a user it referred, a minute ago. */
  function flaggedWithReferral(projectId: string) {
    const affiliate = newAffiliate(harness, projectId);
    const master = newAffiliate(harness, projectId);
    harness.agency.setMaster(projectId, affiliate.user, { user: master.user, spreadBps: 500 });
    const user = newUser();
    refer(harness, projectId, user, affiliate.code);
    harness.agency.flag(projectId, affiliate.user);
    harness.clock.advance(MINUTE);
    return { affiliate, user };
  }

  it('pays as before with every rule off and nobody flagged: available at once, nothing in the queue', async () => {
    const { projectId } = await project({ review: { max_reward_per_conversion: null } });
    const affiliate = newAffiliate(harness, projectId);
    const user = newUser();
    refer(harness, projectId, user, affiliate.code);
    const input = conversion({ user, rewardBase: '10000' });
    expect(await pay(harness, projectId, [input])).toEqual({ recorded: 1, movements: 2 });
    expect(await statesOf(projectId, input.id)).toEqual([
      ['affiliate_payout', 'available', null],
      ['end_user_payout', 'available', null],
    ]);
    expect(await queue(projectId)).toEqual([]);
  });

  it('max_reward_per_conversion: a conversion paying more in total waits for review and is in the queue with its figures; one at the limit is paid', async () => {
    const { projectId } = await project({ review: { max_reward_per_conversion: '1100' } });
    const affiliate = newAffiliate(harness, projectId);
    const user = newUser();
    refer(harness, projectId, user, affiliate.code);
    // 100 + 1,000 = 1,100: at the limit. 101 + 1,010 = 1,111: above it.
    const atLimit = conversion({ user, rewardBase: '10000' });
    const above = conversion({ user, rewardBase: '10100' });
    expect(await pay(harness, projectId, [atLimit, above])).toEqual({ recorded: 2, movements: 4 });
    expect(await statesOf(projectId, atLimit.id)).toEqual([
      ['affiliate_payout', 'available', null],
      ['end_user_payout', 'available', null],
    ]);
    expect(await statesOf(projectId, above.id)).toEqual([
      ['affiliate_payout', 'pending', 'review'],
      ['end_user_payout', 'pending', 'review'],
    ]);
    expect(await queue(projectId)).toEqual([
      {
        conversionId: above.id,
        user: { identifier: user.identifier, identifierType: 'evm_address' },
        rules: [{ rule: 'max_reward_per_conversion', limit: 1100n, actual: 1111n }],
        flaggedAt: harness.clock.now(),
        decidedAt: null,
        decision: null,
      },
    ]);
    // The reviewed end user's 101 is pending, in no check.
    expect((await harness.domain.claimChecks.totals(projectId, user)).pending).toEqual([expect.objectContaining({ amount: 101n })]);
  });

  it('max_conversions_per_user_per_hour: the conversion past the limit in the hour waits, the ones before are paid', async () => {
    const { projectId } = await project({ review: { max_conversions_per_user_per_hour: 2 } });
    const user = newUser();
    const start = harness.clock.now().getTime();
    const inputs = [0, 10, 20].map((minutes) => conversion({ user, occurredAt: new Date(start - 30 * MINUTE + minutes * MINUTE) }));
    await pay(harness, projectId, inputs);
    expect((await movements(projectId)).map((row) => [row.conversion_id, row.status, row.pending_reason])).toEqual(
      [
        [inputs[0]!.id, 'available', null],
        [inputs[1]!.id, 'available', null],
        [inputs[2]!.id, 'pending', 'review'],
      ].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    );
    expect((await queue(projectId)).map((record) => [record.conversionId, record.rules])).toEqual([
      [inputs[2]!.id, [{ rule: 'max_conversions_per_user_per_hour', limit: 2n, actual: 3n }]],
    ]);
  });

  it('min_seconds_from_referral_to_conversion: a conversion too soon after the referral waits; one late enough is paid', async () => {
    const { projectId } = await project({ review: { min_seconds_from_referral_to_conversion: 600 } });
    const affiliate = newAffiliate(harness, projectId);
    const user = newUser();
    const referredAt = harness.clock.now().getTime();
    refer(harness, projectId, user, affiliate.code);
    harness.clock.advance(20 * MINUTE);
    const soon = conversion({ user, occurredAt: new Date(referredAt + 5 * MINUTE) });
    const late = conversion({ user, occurredAt: new Date(referredAt + 10 * MINUTE) });
    await pay(harness, projectId, [soon, late]);
    expect(await statesOf(projectId, soon.id)).toEqual([
      ['affiliate_payout', 'pending', 'review'],
      ['end_user_payout', 'pending', 'review'],
    ]);
    expect(await statesOf(projectId, late.id)).toEqual([
      ['affiliate_payout', 'available', null],
      ['end_user_payout', 'available', null],
    ]);
    expect((await queue(projectId)).map((record) => [record.conversionId, record.rules])).toEqual([
      [soon.id, [{ rule: 'min_seconds_from_referral_to_conversion', limit: 600n, actual: 300n }]],
    ]);
  });

  it('review overrides approval and hold: an approval then waits for the rest of the hold, and decides the queue row in the same call', async () => {
    const { projectId } = await project({ holdDays: 3, requireApproval: true, review: { max_reward_per_conversion: '0' } });
    const input = conversion({ rewardBase: '10000' });
    const paidAt = harness.clock.now();
    await pay(harness, projectId, [input]);
    expect(await movements(projectId)).toEqual([
      expect.objectContaining({ status: 'pending', pending_reason: 'review', available_at: new Date(paidAt.getTime() + 3 * DAY), in_check: false }),
    ]);
    harness.clock.advance(DAY);
    const [result] = await harness.domain.decisions.approve(projectId, [input.id], undefined, KEY);
    expect(result!.outcome).toBe('approved');
    expect(await movements(projectId)).toEqual([expect.objectContaining({ status: 'pending', pending_reason: 'hold', in_check: false })]);
    expect(await queue(projectId)).toEqual([
      expect.objectContaining({ conversionId: input.id, decision: 'approved', decidedAt: harness.clock.now() }),
    ]);
    harness.clock.advance(2 * DAY);
    expect(await harness.domain.decisions.releaseDue(100)).toBe(1);
    expect(await movements(projectId)).toEqual([expect.objectContaining({ status: 'available', pending_reason: null, in_check: true })]);
  });

  it('approve of a reviewed conversion without hold makes its movements available at once', async () => {
    const { projectId } = await project({ review: { max_reward_per_conversion: '0' } });
    const input = conversion({ rewardBase: '10000' });
    await pay(harness, projectId, [input]);
    await harness.domain.decisions.approve(projectId, [input.id], undefined, KEY);
    expect(await movements(projectId)).toEqual([expect.objectContaining({ status: 'available', pending_reason: null, in_check: true })]);
    expect(await queue(projectId)).toEqual([expect.objectContaining({ decision: 'approved' })]);
  });

  it('decline declines the movements and the queue row together; deciding again changes neither', async () => {
    const { projectId } = await project({ review: { max_reward_per_conversion: '0' } });
    const input = conversion({ rewardBase: '10000' });
    await pay(harness, projectId, [input]);
    const decidedAt = harness.clock.now();
    expect((await harness.domain.decisions.decline(projectId, [input.id], 'a farm', KEY)).map((r) => r.outcome)).toEqual(['declined']);
    harness.clock.advance(MINUTE);
    expect((await harness.domain.decisions.approve(projectId, [input.id], undefined, KEY)).map((r) => r.outcome)).toEqual(['already_declined']);
    expect(await movements(projectId)).toEqual([expect.objectContaining({ status: 'declined', pending_reason: null, in_check: false })]);
    expect(await queue(projectId)).toEqual([expect.objectContaining({ conversionId: input.id, decision: 'declined', decidedAt })]);
  });

  it('a flagged affiliate: its and its master’s movements wait for review, the end user’s are paid, and the conversion is not in the rules’ queue', async () => {
    const { projectId } = await project({ holdDays: 0 });
    const { affiliate, user } = flaggedWithReferral(projectId);
    const first = conversion({ user });
    const second = conversion({ user });
    await pay(harness, projectId, [first, second]);
    for (const input of [first, second]) {
      expect(await statesOf(projectId, input.id)).toEqual([
        ['affiliate_payout', 'pending', 'review'],
        ['agency_payout', 'pending', 'review'],
        ['end_user_payout', 'available', null],
      ]);
    }
    expect(await queue(projectId)).toEqual([]);
    // Approve pays the first; decline refuses the second.
    await harness.domain.decisions.approve(projectId, [first.id], undefined, KEY);
    await harness.domain.decisions.decline(projectId, [second.id], 'flagged affiliate', KEY);
    expect(await statesOf(projectId, first.id)).toEqual([
      ['affiliate_payout', 'available', null],
      ['agency_payout', 'available', null],
      ['end_user_payout', 'available', null],
    ]);
    expect(await statesOf(projectId, second.id)).toEqual([
      ['affiliate_payout', 'declined', null],
      ['agency_payout', 'declined', null],
      ['end_user_payout', 'available', null],
    ]);
    // Unflagged: its next conversions are paid under the terms again.
    harness.agency.flag(projectId, affiliate.user, false);
    const third = conversion({ user });
    await pay(harness, projectId, [third]);
    expect(await statesOf(projectId, third.id)).toEqual([
      ['affiliate_payout', 'available', null],
      ['agency_payout', 'available', null],
      ['end_user_payout', 'available', null],
    ]);
  });

  it('a flagged affiliate under held terms: the end user waits for its hold only, the affiliate for review', async () => {
    const { projectId } = await project({ holdDays: 2 });
    const affiliate = newAffiliate(harness, projectId);
    const user = newUser();
    refer(harness, projectId, user, affiliate.code);
    harness.agency.flag(projectId, affiliate.user);
    const input = conversion({ user });
    await pay(harness, projectId, [input]);
    expect(await statesOf(projectId, input.id)).toEqual([
      ['affiliate_payout', 'pending', 'review'],
      ['end_user_payout', 'pending', 'hold'],
    ]);
    harness.clock.advance(2 * DAY);
    await harness.domain.decisions.releaseDue(100);
    expect(await statesOf(projectId, input.id)).toEqual([
      ['affiliate_payout', 'pending', 'review'],
      ['end_user_payout', 'available', null],
    ]);
  });

  it('a redelivered batch flags nothing twice and pays nothing twice', async () => {
    const { projectId } = await project({ review: { max_reward_per_conversion: '0' } });
    const input = conversion({ rewardBase: '10000' });
    await pay(harness, projectId, [input]);
    const batchId = await batchOf(harness, projectId, input.id);
    expect(await harness.domain.payouts.payBatch(batchId)).toEqual({ recorded: 0, movements: 0 });
    expect(await queue(projectId)).toHaveLength(1);
    expect(await movements(projectId)).toHaveLength(1);
  });

  describe('unflag (the claim-affiliate-unflags consumer)', () => {
    const consumer = affiliateUnflags as unknown as EventConsumer<ClaimDatabase, EventType>;
    const statusChanged = (
      projectId: string,
      affiliate: { id: string; user: { identifier: string; identifierType: string } },
      from: string,
      to: string,
      id?: string,
    ) =>
      eventNow(
        harness,
        projectId,
        'agency.affiliate.status_changed',
        {
          affiliate_id: affiliate.id,
          user: { identifier: affiliate.user.identifier, identifier_type: affiliate.user.identifierType as 'evm_address' },
          from: from as 'flagged',
          to: to as 'active',
          reason: null,
          changed_at: harness.clock.now().toISOString(),
        },
        id,
      );

    it('releases the movements that waited for the flag (available, or hold for the rest of it), not those of a broken rule; once', async () => {
      const { projectId } = await project({ holdDays: 2, review: { max_reward_per_conversion: '5000' } });
      const { affiliate, user } = flaggedWithReferral(projectId);
      const early = conversion({ user });
      await pay(harness, projectId, [early]);
      harness.clock.advance(2 * DAY);
      // 100 + 1,000 + 500 = 1,600 for this one; 100,000 base pays 1,000 + 10,000 + 5,000: above 5,000.
      const late = conversion({ user });
      const ruled = conversion({ user, rewardBase: '100000' });
      await pay(harness, projectId, [late, ruled]);
      harness.agency.flag(projectId, affiliate.user, false);
      const event = statusChanged(projectId, affiliate, 'flagged', 'active');
      expect(await deliverTo(harness, consumer, event)).toBe('handled');
      // Its hold passed: available now (the end user's, held, waits for the release job). Within it: the rest of the hold. A broken rule: still review.
      expect(await statesOf(projectId, early.id)).toEqual([
        ['affiliate_payout', 'available', null],
        ['agency_payout', 'available', null],
        ['end_user_payout', 'pending', 'hold'],
      ]);
      expect(await statesOf(projectId, late.id)).toEqual([
        ['affiliate_payout', 'pending', 'hold'],
        ['agency_payout', 'pending', 'hold'],
        ['end_user_payout', 'pending', 'hold'],
      ]);
      expect(await statesOf(projectId, ruled.id)).toEqual([
        ['affiliate_payout', 'pending', 'review'],
        ['agency_payout', 'pending', 'review'],
        ['end_user_payout', 'pending', 'review'],
      ]);
      const [released] = (await movements(projectId)).filter((row) => row.conversion_id === early.id && row.kind === 'affiliate_payout');
      expect(released!.in_check).toBe(true);
      // Not a decision: an approval of the released conversion finds nothing waiting.
      expect((await harness.domain.decisions.approve(projectId, [early.id], undefined, KEY)).map((r) => r.outcome)).toEqual(['not_pending']);
      // Redelivered: nothing twice.
      expect(await deliverTo(harness, consumer, event)).toBe('duplicate');
      expect(await deliverTo(harness, consumer, statusChanged(projectId, affiliate, 'flagged', 'active', randomUUID()))).toBe('handled');
      expect((await harness.domain.claimChecks.totals(projectId, affiliate.user)).unclaimed).toEqual([expect.objectContaining({ amount: 1000n })]);
    });

    it('ignores every other status change', async () => {
      const { projectId } = await project();
      const affiliate = newAffiliate(harness, projectId);
      const user = newUser();
      refer(harness, projectId, user, affiliate.code);
      harness.agency.flag(projectId, affiliate.user);
      const input = conversion({ user });
      await pay(harness, projectId, [input]);
      for (const [from, to] of [
        ['active', 'flagged'],
        ['flagged', 'suspended'],
        ['suspended', 'active'],
      ] as const) {
        expect(await deliverTo(harness, consumer, statusChanged(projectId, affiliate, from, to))).toBe('ignored');
      }
      expect(await statesOf(projectId, input.id)).toEqual([
        ['affiliate_payout', 'pending', 'review'],
        ['end_user_payout', 'available', null],
      ]);
    });
  });
});
