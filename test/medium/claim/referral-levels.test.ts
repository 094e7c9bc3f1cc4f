import { InvalidArgumentError } from '../../../services/rules/errors';
import type { PayoutTermsInput } from '../../../services/claim/domain/payout-terms.service';
import { startClaimDomain } from '../../helpers/claim-domain';
import { rowsOf, useDomainHarness } from '../../helpers/domain';
import { conversion, newAffiliate, newProject, newUser, pay, refer, termsInput } from './fixtures';

const KEY = 'key-admin-levels';
const DAY = 86_400_000;

type User = { identifier: string; identifierType: string };
type Affiliate = ReturnType<typeof newAffiliate>;

type Row = {
  kind: string;
  level: number;
  identifier: string;
  amount: string;
  capped_amount: string;
  capped_by: string | null;
  status: string;
  pending_reason: string | null;
};

/**
 * Referral levels on the payment path (docs/claims.md#referral-levels), with the real claim repositories and the
 * fake agency answering each affiliate's upline from its referrals (test/helpers/fakes/agency.ts): an affiliate
 * whose own user was referred by another has that one at level 2, and so on up to 4. The terms' rewards per
 * level, each level's affiliate_payout with its level, the upline frozen on the conversion, caps, holds, flags,
 * reversals and the events. The agency's side (resolving the chain, refusing cycles) is the agency's tests'.
 */
describe('referral levels (domain)', () => {
  const harness = useDomainHarness(() => startClaimDomain());

  const rows = rowsOf(harness);

  async function project(fields: Partial<PayoutTermsInput>) {
    const created = await newProject(harness);
    await harness.domain.terms.put(created.projectId, 'trade', termsInput(created.currencyId, fields));
    return created;
  }

  /** A chain of `length` affiliates, each one's user referred by the one before: the last refers `user`. Answers them from level 1 up. */
  function chainOf(projectId: string, length: number, user: User = newUser()): { levels: Affiliate[]; user: User } {
    const affiliates = Array.from({ length }, () => newAffiliate(harness, projectId));
    for (let index = 1; index < length; index++) refer(harness, projectId, affiliates[index]!.user, affiliates[index - 1]!.code);
    refer(harness, projectId, user, affiliates[length - 1]!.code);
    return { levels: [...affiliates].reverse(), user };
  }

  const movements = (projectId: string, conversionId?: string) =>
    rows<Row>(
      `SELECT kind, level, identifier, amount::text, capped_amount::text, capped_by, status, pending_reason FROM claim.movements
       WHERE project_id = $1 AND ($2::text IS NULL OR conversion_id = $2) ORDER BY id`,
      [projectId, conversionId ?? null],
    );

  const LEVELS: Partial<PayoutTermsInput> = {
    affiliate: { bps: 1_000 },
    affiliate2: { bps: 500 },
    affiliate3: { fixed: '70' },
    affiliate4: { bps: 100 },
  };

  it('pays each ancestor its level’s reward, stores the level, freezes the upline and tells it in the processed event', async () => {
    const { projectId } = await project(LEVELS);
    // Five affiliates in a row: the top one is level 5, past the chain, and earns nothing.
    const { levels, user } = chainOf(projectId, 5);
    harness.clock.advance(1_000);
    const input = conversion({ user, rewardBase: '10000' });
    await pay(harness, projectId, [input]);
    expect((await movements(projectId)).map((row) => [row.kind, row.level, row.identifier, row.amount])).toEqual([
      ['affiliate_payout', 1, levels[0]!.user.identifier, '1000'],
      ['affiliate_payout', 2, levels[1]!.user.identifier, '500'],
      ['affiliate_payout', 3, levels[2]!.user.identifier, '70'],
      ['affiliate_payout', 4, levels[3]!.user.identifier, '100'],
    ]);
    const paid = await harness.domain.ledger.conversion(projectId, input.id);
    expect(paid.attribution?.upline).toEqual(
      [2, 3, 4].map((level) => ({ level, affiliate: { id: levels[level - 1]!.id, user: levels[level - 1]!.user } })),
    );
    expect(paid.movements.map((movement) => movement.level)).toEqual([1, 2, 3, 4]);
    const asUser = (who: User) => ({ identifier: who.identifier, identifier_type: who.identifierType });
    const [event] = await rows<{ upline: unknown; payouts: unknown }>(
      `SELECT payload->'upline' AS upline, payload->'payouts' AS payouts FROM claim.outbox
       WHERE type = 'claim.conversion.processed' AND payload->>'conversion_id' = $1`,
      [input.id],
    );
    expect(event?.upline).toEqual([2, 3, 4].map((level) => ({ level, id: levels[level - 1]!.id, user: asUser(levels[level - 1]!.user) })));
    expect(event?.payouts).toEqual([
      { kind: 'affiliate_payout', user: asUser(levels[0]!.user), amount: '1000', level: 1 },
      { kind: 'affiliate_payout', user: asUser(levels[1]!.user), amount: '500', level: 2 },
      { kind: 'affiliate_payout', user: asUser(levels[2]!.user), amount: '70', level: 3 },
      { kind: 'affiliate_payout', user: asUser(levels[3]!.user), amount: '100', level: 4 },
    ]);
    // Each level's money is its own affiliate claim check.
    expect(
      await rows('SELECT identifier, amount::text FROM claim.claim_checks WHERE project_id = $1 AND reason = $2 ORDER BY amount', [
        projectId,
        'affiliate',
      ]),
    ).toHaveLength(4);
  });

  it('keeps the upline it paid: a later referral, suspension or change of terms rewrites no paid conversion', async () => {
    const { projectId, currencyId } = await project(LEVELS);
    const { levels, user } = chainOf(projectId, 2);
    harness.clock.advance(1_000);
    const first = conversion({ user });
    await pay(harness, projectId, [first]);
    // Level 2 suspended from now on: the next conversion pays level 1 only; the first keeps its level 2.
    harness.agency.suspend(projectId, levels[1]!.user);
    await harness.domain.terms.put(projectId, 'trade', termsInput(currencyId, { affiliate: { bps: 1_000 }, affiliate2: { bps: 9_000 } }));
    harness.clock.advance(1_000);
    const second = conversion({ user });
    await pay(harness, projectId, [second]);
    expect((await harness.domain.ledger.conversion(projectId, first.id)).attribution?.upline.map((level) => level.level)).toEqual([2]);
    expect((await harness.domain.ledger.conversion(projectId, second.id)).attribution?.upline).toEqual([]);
    expect((await movements(projectId, first.id)).map((row) => [row.level, row.amount])).toEqual([
      [1, '1000'],
      [2, '500'],
    ]);
    expect((await movements(projectId, second.id)).map((row) => [row.level, row.amount])).toEqual([[1, '1000']]);
  });

  it('caps each level’s movement per conversion, and counts an affiliate’s payouts of every level toward its window', async () => {
    const { projectId } = await project({
      affiliate: { fixed: '300' },
      affiliate2: { fixed: '250' },
      caps: { perConversion: '200', perAffiliateWindow: { amount: '500', days: 7 } },
    });
    // `top` refers `middle` (so is level 2 of middle's users) and also refers a user directly (level 1).
    const { levels, user } = chainOf(projectId, 2);
    const top = levels[1]!;
    const direct = newUser();
    refer(harness, projectId, direct, top.code);
    harness.clock.advance(1_000);
    const [viaMiddle, own, again] = [conversion({ id: 'a', user }), conversion({ id: 'b', user: direct }), conversion({ id: 'c', user: direct })];
    await pay(harness, projectId, [viaMiddle, own, again]);
    const topRows = (await movements(projectId)).filter((row) => row.identifier === top.user.identifier);
    // Each movement at most 200 (per conversion); top's window of 500 holds its level-2 and its level-1 payouts together.
    expect(topRows.map((row) => [row.level, row.amount, row.capped_amount, row.capped_by])).toEqual([
      [2, '200', '50', 'per_conversion'],
      [1, '200', '100', 'per_conversion'],
      [1, '100', '200', 'per_conversion'],
    ]);
    expect(topRows.reduce((sum, row) => sum + BigInt(row.amount), 0n)).toBe(500n);
  });

  it('caps a level-1 reward with its rebate and splits it again, and takes no rebate into an upline level’s payout', async () => {
    const { projectId } = await project({ affiliate: { fixed: '1000' }, affiliate2: { fixed: '400' }, caps: { perConversion: '600' } });
    const { levels, user } = chainOf(projectId, 2);
    harness.agency.setRebateRate(projectId, levels[0]!.user, 1_000);
    // Level 2's own code also has a rebate rate: it gives nothing from a conversion it did not refer.
    harness.agency.setRebateRate(projectId, levels[1]!.user, 2_000);
    harness.clock.advance(1_000);
    await pay(harness, projectId, [conversion({ user })]);
    // Level 1: 1000 capped to 600, then split (rebate 60, the affiliate 540); level 2: 400, under the cap, whole.
    expect((await movements(projectId)).map((row) => [row.kind, row.level, row.identifier, row.amount, row.capped_amount])).toEqual([
      ['affiliate_payout', 1, levels[0]!.user.identifier, '540', '400'],
      ['affiliate_payout', 2, levels[1]!.user.identifier, '400', '0'],
      ['end_user_payout', 1, user.identifier, '60', '0'],
    ]);
  });

  it('a level’s payout follows the terms’ hold and approval, and waits for review with the rest when the level-1 affiliate is flagged', async () => {
    const held = await project({ ...LEVELS, holdDays: 1, requireApproval: true });
    const heldChain = chainOf(held.projectId, 2);
    harness.clock.advance(1_000);
    const input = conversion({ user: heldChain.user });
    await pay(harness, held.projectId, [input]);
    expect((await movements(held.projectId)).map((row) => [row.level, row.status, row.pending_reason])).toEqual([
      [1, 'pending', 'approval'],
      [2, 'pending', 'approval'],
    ]);
    await harness.domain.decisions.approve(held.projectId, [input.id], undefined, KEY);
    harness.clock.advance(DAY + 1_000);
    await harness.domain.decisions.releaseDue(1_000);
    expect((await movements(held.projectId)).map((row) => [row.level, row.status])).toEqual([
      [1, 'available'],
      [2, 'available'],
    ]);

    const flagged = await project(LEVELS);
    const flaggedChain = chainOf(flagged.projectId, 3);
    harness.agency.flag(flagged.projectId, flaggedChain.levels[0]!.user);
    harness.clock.advance(1_000);
    await pay(harness, flagged.projectId, [conversion({ user: flaggedChain.user })]);
    expect((await movements(flagged.projectId)).map((row) => [row.level, row.status, row.pending_reason])).toEqual([
      [1, 'pending', 'review'],
      [2, 'pending', 'review'],
      [3, 'pending', 'review'],
    ]);
  });

  it('holds each level’s beneficiary to the affiliate allowlist on its own', async () => {
    const { projectId, currencyId } = await newProject(harness);
    const list = harness.audiences.create(projectId);
    await harness.domain.terms.put(projectId, 'trade', termsInput(currencyId, { ...LEVELS, affiliateAllowlistAudienceId: list.id }));
    const { levels, user } = chainOf(projectId, 3);
    // Level 1 and level 3 are members; level 2 is not.
    harness.audiences.add(projectId, list.id, levels[0]!.user);
    harness.audiences.add(projectId, list.id, levels[2]!.user);
    harness.clock.advance(1_000);
    await pay(harness, projectId, [conversion({ user })]);
    expect((await movements(projectId)).map((row) => [row.level, row.identifier])).toEqual([
      [1, levels[0]!.user.identifier],
      [3, levels[2]!.user.identifier],
    ]);
  });

  it('a reversal takes the same share back from each level, and its event tells each part’s level and the upline', async () => {
    const { projectId } = await project({ affiliate: { fixed: '1001' }, affiliate2: { fixed: '503' }, affiliate3: { fixed: '99' } });
    const { levels, user } = chainOf(projectId, 3);
    harness.clock.advance(1_000);
    const input = conversion({ user });
    await pay(harness, projectId, [input]);
    const { reversal } = await harness.domain.reversals.reverse(projectId, {
      conversionId: input.id,
      reversalId: 'refund-levels',
      shareBps: 5_000,
      reason: 'refunded',
      reversedBy: KEY,
    });
    expect(reversal.movements.map((part) => [part.level, part.beneficiary.identifier, part.amount])).toEqual([
      [1, levels[0]!.user.identifier, 500n],
      [2, levels[1]!.user.identifier, 251n],
      [3, levels[2]!.user.identifier, 49n],
    ]);
    const [event] = await rows<{ upline: Array<{ level: number; id: string }>; reversals: Array<{ amount: string; level?: number }> }>(
      `SELECT payload->'upline' AS upline, payload->'reversals' AS reversals FROM claim.outbox
       WHERE type = 'claim.conversion.reversed' AND payload->>'conversion_id' = $1`,
      [input.id],
    );
    expect(event?.upline.map((level) => [level.level, level.id])).toEqual([
      [2, levels[1]!.id],
      [3, levels[2]!.id],
    ]);
    expect(event?.reversals.map((part) => [part.level, part.amount])).toEqual([
      [1, '500'],
      [2, '251'],
      [3, '49'],
    ]);
  });

  it('lists a paid conversion’s upline with each level’s payout and what its reversals took back per level (ListPaidConversions)', async () => {
    // Level 3 is named by no reward: frozen, paid "0".
    const { projectId } = await project({ affiliate: { fixed: '1000' }, affiliate2: { fixed: '301' } });
    const { levels, user } = chainOf(projectId, 3);
    harness.clock.advance(1_000);
    const input = conversion({ user });
    await pay(harness, projectId, [input]);
    await harness.domain.reversals.reverse(projectId, {
      conversionId: input.id,
      reversalId: 'r-levels',
      shareBps: 5_000,
      reason: 'x',
      reversedBy: KEY,
    });
    const { records } = await harness.domain.paidConversions.page(projectId, null, 10);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      affiliatePayout: 1_000n,
      upline: [
        { level: 2, affiliateId: levels[1]!.id, affiliatePayout: 301n },
        { level: 3, affiliateId: levels[2]!.id, affiliatePayout: 0n },
      ],
      reversals: [{ reversalId: 'r-levels', affiliatePayout: 500n, upline: [{ level: 2, amount: 150n }] }],
    });
  });

  describe('payout terms', () => {
    it('take, answer and replace the rewards of levels 2..4, on the terms and on each tier', async () => {
      const { projectId, currencyId } = await newProject(harness);
      const gold = harness.audiences.create(projectId).id;
      const { record } = await harness.domain.terms.put(
        projectId,
        'trade',
        termsInput(currencyId, {
          affiliate: { bps: 1_000 },
          affiliate2: { fixed: '5' },
          affiliate4: { bps: 25 },
          tiers: [{ audienceId: gold, affiliate: { bps: 2_000 }, affiliate3: { bps: 300 } }],
        }),
      );
      expect(record.upline).toEqual({ 2: { fixed: 5n }, 4: { bps: 25 } });
      expect(record.tiers).toEqual([{ audienceId: gold, affiliate: { bps: 2_000 }, upline: { 3: { bps: 300 } } }]);
      expect((await harness.domain.terms.get(projectId, 'trade')).upline).toEqual({ 2: { fixed: 5n }, 4: { bps: 25 } });
      await harness.domain.terms.put(projectId, 'trade', termsInput(currencyId, { affiliate: { bps: 1_000 } }));
      expect((await harness.domain.terms.get(projectId, 'trade')).upline).toEqual({});
    });

    it('refuse a bad level reward, naming its field, and change nothing', async () => {
      const { projectId, currencyId } = await newProject(harness);
      await harness.domain.terms.put(projectId, 'trade', termsInput(currencyId, { affiliate2: { bps: 10 } }));
      const refused = harness.domain.terms.put(
        projectId,
        'trade',
        termsInput(currencyId, {
          affiliate3: { bps: 10_001 },
          tiers: [{ audienceId: harness.audiences.create(projectId).id, affiliate: { bps: 1 }, affiliate4: { fixed: '-1' } }],
        }),
      );
      await expect(refused).rejects.toBeInstanceOf(InvalidArgumentError);
      await expect(refused).rejects.toMatchObject({
        details: expect.arrayContaining([
          expect.objectContaining({ field: 'affiliate3.bps' }),
          expect.objectContaining({ field: 'tiers[0].affiliate4.fixed' }),
        ]),
      });
      expect((await harness.domain.terms.get(projectId, 'trade')).upline).toEqual({ 2: { bps: 10 } });
    });
  });
});
