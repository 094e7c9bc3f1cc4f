import { randomUUID } from 'node:crypto';
import { ConversionReviewRepository } from '../../../services/claim/repositories/conversion-review.repository';
import { ReviewFactsRepository } from '../../../services/claim/repositories/review-facts.repository';
import type { UserIdentifier } from '../../../services/rules/identifiers';
import { type ClaimHarness, startClaimDomain } from '../../helpers/claim-domain';
import { randomEvmAddress } from '../../helpers/evm-addresses';
import { conversion } from './fixtures';

const MINUTE = 60_000;
const evmUser = (): UserIdentifier => ({ identifier: randomEvmAddress(), identifierType: 'evm_address' });

/**
 * Review rules on the domain (docs/claims.md#review-rules): the settings' validation and PATCH
 * semantics, the review queue's filters and paging (filled through the repository; the payment path's
 * flagging is in review-wiring.test.ts), and the one-query fact of conversions per user per hour.
 */
describe('review rules (domain)', () => {
  let harness: ClaimHarness;
  beforeAll(async () => {
    harness = await startClaimDomain();
    harness.clock.set('2026-11-21T12:00:00.000Z');
  });
  afterAll(() => harness.stop());

  const review = () => harness.domain.review;

  describe('settings', () => {
    it('are all off until first changed', async () => {
      expect(await review().getSettings(randomUUID())).toEqual({
        maxConversionsPerUserPerHour: null,
        minSecondsFromReferralToConversion: null,
        maxRewardPerConversion: null,
        updatedAt: null,
      });
    });

    it('change only the fields given: absent keeps, null turns off', async () => {
      const projectId = randomUUID();
      const first = await review().updateSettings(projectId, { max_conversions_per_user_per_hour: 10, max_reward_per_conversion: '5000000' });
      expect(first).toEqual({
        maxConversionsPerUserPerHour: 10,
        minSecondsFromReferralToConversion: null,
        maxRewardPerConversion: 5_000_000n,
        updatedAt: harness.clock.now(),
      });
      harness.clock.advance(MINUTE);
      expect(
        await review().updateSettings(projectId, { min_seconds_from_referral_to_conversion: 0, max_conversions_per_user_per_hour: null }),
      ).toEqual({
        maxConversionsPerUserPerHour: null,
        minSecondsFromReferralToConversion: 0,
        maxRewardPerConversion: 5_000_000n,
        updatedAt: harness.clock.now(),
      });
      expect(await review().updateSettings(projectId, {})).toMatchObject({
        minSecondsFromReferralToConversion: 0,
        maxRewardPerConversion: 5_000_000n,
      });
      expect(await review().getSettings(projectId)).toMatchObject({ minSecondsFromReferralToConversion: 0, maxRewardPerConversion: 5_000_000n });
    });

    it('keep a reward limit exactly, up to 2^256 − 1', async () => {
      const projectId = randomUUID();
      const max = (2n ** 256n - 1n).toString();
      expect((await review().updateSettings(projectId, { max_reward_per_conversion: max })).maxRewardPerConversion).toBe(2n ** 256n - 1n);
      expect((await review().updateSettings(projectId, { max_reward_per_conversion: '0' })).maxRewardPerConversion).toBe(0n);
    });

    it.each([
      ['max_conversions_per_user_per_hour', 0],
      ['max_conversions_per_user_per_hour', 1_000_001],
      ['max_conversions_per_user_per_hour', 1.5],
      ['min_seconds_from_referral_to_conversion', -1],
      ['min_seconds_from_referral_to_conversion', 31_536_001],
      ['max_reward_per_conversion', '-1'],
      ['max_reward_per_conversion', '1.5'],
      ['max_reward_per_conversion', '1e18'],
      ['max_reward_per_conversion', ''],
      ['max_reward_per_conversion', '01'],
    ])('refuse %s = %p naming the field, changing nothing', async (field, value) => {
      const projectId = randomUUID();
      await review().updateSettings(projectId, { max_conversions_per_user_per_hour: 5 });
      await expect(review().updateSettings(projectId, { [field]: value })).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field }],
      });
      expect(await review().getSettings(projectId)).toMatchObject({ maxConversionsPerUserPerHour: 5, maxRewardPerConversion: null });
    });

    it('refuse a reward past 2^256 − 1 as AMOUNT_OUT_OF_RANGE, and every bad field of one change at once', async () => {
      const projectId = randomUUID();
      await expect(review().updateSettings(projectId, { max_reward_per_conversion: (2n ** 256n).toString() })).rejects.toMatchObject({
        code: 'AMOUNT_OUT_OF_RANGE',
        details: [{ field: 'max_reward_per_conversion' }],
      });
      await expect(
        review().updateSettings(projectId, {
          max_conversions_per_user_per_hour: 0,
          min_seconds_from_referral_to_conversion: -5,
          ...({ max_payout: 1 } as object),
        }),
      ).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: expect.arrayContaining([
          expect.objectContaining({ field: 'max_payout' }),
          expect.objectContaining({ field: 'max_conversions_per_user_per_hour' }),
          expect.objectContaining({ field: 'min_seconds_from_referral_to_conversion' }),
        ]),
      });
      expect((await review().getSettings(projectId)).updatedAt).toBeNull();
    });

    it('answer 404 PROJECT_NOT_FOUND for a project id that is no UUID', async () => {
      await expect(review().getSettings('nope')).rejects.toMatchObject({ code: 'PROJECT_NOT_FOUND' });
      await expect(review().updateSettings('nope', {})).rejects.toMatchObject({ code: 'PROJECT_NOT_FOUND' });
    });
  });

  describe('the review queue', () => {
    const reviews = () => new ConversionReviewRepository(harness.db);
    const ids = (records: Array<{ conversionId: string }>) => records.map((record) => record.conversionId);

    it('lists flagged conversions newest first with their rules, filtered by rule, status and user, paged', async () => {
      const projectId = randomUUID();
      const alice = evmUser();
      const bob = evmUser();
      const t0 = harness.clock.now().getTime();
      const hourly = { rule: 'max_conversions_per_user_per_hour' as const, limit: 3n, actual: 4n };
      const reward = { rule: 'max_reward_per_conversion' as const, limit: 10n ** 18n, actual: 10n ** 30n };
      expect(await reviews().flag(projectId, [{ conversionId: 'c1', user: alice, rules: [hourly] }], harness.clock.now())).toEqual(new Set(['c1']));
      harness.clock.advance(MINUTE);
      await reviews().flag(
        projectId,
        [
          { conversionId: 'c2', user: bob, rules: [reward] },
          { conversionId: 'c3', user: alice, rules: [hourly, reward] },
        ],
        harness.clock.now(),
      );
      // Flagged again (a redelivered batch): nothing changes, its first rules stay.
      expect(await reviews().flag(projectId, [{ conversionId: 'c1', user: alice, rules: [reward] }], harness.clock.now())).toEqual(new Set());
      harness.clock.advance(MINUTE);
      expect(await reviews().decide(projectId, ['c2', 'unknown'], 'declined', harness.clock.now())).toEqual(new Set(['c2']));
      expect(await reviews().decide(projectId, ['c2'], 'approved', harness.clock.now())).toEqual(new Set());
      await reviews().flag(randomUUID(), [{ conversionId: 'c9', user: alice, rules: [hourly] }], harness.clock.now());

      const page = (filters: Parameters<ReturnType<typeof review>['list']>[1], size = 25, number = 1) =>
        review().list(projectId, filters, { page: number, pageSize: size, offset: (number - 1) * size });
      const all = await page({});
      expect(all.total).toBe(3);
      expect(ids(all.records)).toEqual(['c3', 'c2', 'c1']);
      expect(all.records[1]).toEqual({
        conversionId: 'c2',
        user: bob,
        rules: [reward],
        flaggedAt: new Date(t0 + MINUTE),
        decidedAt: new Date(t0 + 2 * MINUTE),
        decision: 'declined',
      });
      expect(all.records[2]).toMatchObject({ rules: [hourly], decidedAt: null, decision: null });
      expect(ids((await page({ rule: 'max_reward_per_conversion' })).records)).toEqual(['c3', 'c2']);
      expect(ids((await page({ rule: 'min_seconds_from_referral_to_conversion' })).records)).toEqual([]);
      expect(ids((await page({ status: 'open' })).records)).toEqual(['c3', 'c1']);
      expect(ids((await page({ status: 'decided' })).records)).toEqual(['c2']);
      expect(
        ids((await page({ user: { identifier: alice.identifier.toUpperCase().replace('0X', '0x'), identifierType: 'evm_address' } })).records),
      ).toEqual(['c3', 'c1']);
      expect(ids((await page({ user: alice, status: 'open', rule: 'max_reward_per_conversion' })).records)).toEqual(['c3']);
      expect(await page({}, 2, 2)).toMatchObject({ total: 3, records: [{ conversionId: 'c1' }] });
    });

    it('refuses a malformed user filter naming it', async () => {
      await expect(
        review().list(randomUUID(), { user: { identifier: 'nope', identifierType: 'evm_address' } }, { page: 1, pageSize: 25, offset: 0 }),
      ).rejects.toMatchObject({
        details: [{ field: expect.stringContaining('user') }],
      });
    });
  });

  describe('assessing a batch (the payment path’s question)', () => {
    it('answers, by conversion, every rule it breaks with its figures; none while every rule is off', async () => {
      const projectId = randomUUID();
      const alice = evmUser();
      const bob = evmUser();
      const start = new Date('2026-11-21T08:00:00.000Z');
      const at = (minutes: number) => new Date(start.getTime() + minutes * MINUTE);
      await harness.domain.conversions.submitMany(projectId, [
        conversion({ id: 'p0', user: alice, occurredAt: at(0) }),
        conversion({ id: 'p1', user: alice, occurredAt: at(10) }),
        conversion({ id: 'p2', user: alice, occurredAt: at(20) }),
      ]);
      const batch = [
        { id: 'p2', user: alice, occurredAt: at(20), referredAt: at(19), totalReward: 5_000n },
        { id: 'q0', user: bob, occurredAt: at(20), referredAt: null, totalReward: 10n ** 24n },
        { id: 'q1', user: bob, occurredAt: at(30), referredAt: at(0), totalReward: null },
      ];
      expect(await review().assess(projectId, batch)).toEqual(new Map());

      await review().updateSettings(projectId, {
        max_conversions_per_user_per_hour: 2,
        min_seconds_from_referral_to_conversion: 120,
        max_reward_per_conversion: '1000000000000000000',
      });
      expect(await review().assess(projectId, batch)).toEqual(
        new Map([
          [
            'p2',
            [
              { rule: 'max_conversions_per_user_per_hour', limit: 2n, actual: 3n },
              { rule: 'min_seconds_from_referral_to_conversion', limit: 120n, actual: 60n },
            ],
          ],
          ['q0', [{ rule: 'max_reward_per_conversion', limit: 10n ** 18n, actual: 10n ** 24n }]],
        ]),
      );
      expect(await review().assess(projectId, [])).toEqual(new Map());
    });
  });

  describe('conversions per user per hour', () => {
    it('counts, per conversion of a batch in one query, the user’s other conversions of the hour ending at it', async () => {
      const projectId = randomUUID();
      const alice = evmUser();
      const bob = evmUser();
      const start = new Date('2026-11-21T10:00:00.000Z');
      const at = (minutes: number) => new Date(start.getTime() + minutes * MINUTE);
      const stored = [
        conversion({ id: 'a0', user: alice, occurredAt: at(0) }),
        conversion({ id: 'a1', user: alice, occurredAt: at(30) }),
        conversion({ id: 'a2', user: alice, occurredAt: at(60) }),
        conversion({ id: 'a3', user: alice, occurredAt: at(61), name: 'deposit' }),
        conversion({ id: 'b0', user: bob, occurredAt: at(45) }),
      ];
      await harness.domain.conversions.submitMany(projectId, stored);
      await harness.domain.conversions.submitMany(randomUUID(), [conversion({ id: 'x0', user: alice, occurredAt: at(59) })]);

      const facts = new ReviewFactsRepository(harness.db);
      const item = (id: string, user: typeof alice, minutes: number) => ({ id, user, occurredAt: at(minutes) });
      expect(
        await facts.otherConversionsInHour(projectId, [
          item('a0', alice, 0),
          item('a1', alice, 30),
          // Its hour is (10:00, 11:00]: a0, exactly an hour before, is out.
          item('a2', alice, 60),
          item('a3', alice, 61),
          item('b0', bob, 45),
          // Not stored yet (the conversion being paid is usually stored; this one need not be).
          item('new', alice, 90),
          item('new', evmUser(), 90),
        ]),
      ).toEqual([0, 1, 1, 2, 0, 2, 0]);
      expect(await facts.otherConversionsInHour(projectId, [])).toEqual([]);
    });
  });
});
