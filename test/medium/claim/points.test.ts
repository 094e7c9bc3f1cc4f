import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { CurrencyInput } from '../../../services/claim/domain/currency.service';
import { toPage } from '../../../services/rules/pagination';
import { startClaimDomain } from '../../helpers/claim-domain';
import { rowsOf, useDomainHarness } from '../../helpers/domain';
import { batchOf, conversion, newAffiliate, newUser, refer, termsInput } from './fixtures';

const DAY = 86_400_000;
const KEY = 'key-admin-1';

/**
 * Points (docs/claims.md#points): a point currency has no chain, no address and decimals 0, one per
 * project; its movements follow the statuses, caps and reversals of any other, but what becomes
 * available goes to the user's points balance, never to a claim check, and the reconciliation
 * checks that the balances hold exactly what is available.
 */
describe('points (domain)', () => {
  const harness = useDomainHarness(() => startClaimDomain());

  const rows = rowsOf(harness);
  const points = (fields: Partial<CurrencyInput> = {}): CurrencyInput => ({
    chainId: undefined,
    address: undefined,
    name: 'XP',
    decimals: 0,
    type: 'point',
    ...fields,
  });

  async function project(fields: Parameters<typeof termsInput>[1] = {}) {
    const projectId = randomUUID();
    const currency = await harness.domain.currencies.create(projectId, points());
    await harness.domain.terms.put(projectId, 'trade', termsInput(currency.id, { endUser: { fixed: '40' }, affiliate: { bps: 1_000 }, ...fields }));
    const affiliate = newAffiliate(harness, projectId);
    return { projectId, currencyId: currency.id, affiliate };
  }

  /** A referred user's `trade` of reward base 1000: 40 points to it, 100 to the affiliate (10%). */
  async function pay(projectId: string, code: string, user = newUser()) {
    refer(harness, projectId, user, code);
    const input = conversion({ user, rewardBase: '1000' });
    await harness.domain.conversions.submitMany(projectId, [input]);
    await harness.domain.payouts.payBatch(await batchOf(harness, projectId, input.id));
    return { id: input.id, user };
  }

  const balance = async (projectId: string, user: { identifier: string; identifierType: string }) => {
    const { records } = await harness.domain.points.balances(projectId, user, toPage());
    const [record] = records;
    return { balance: record!.balance, credited: record!.credited, takenBack: record!.takenBack };
  };
  const checks = (projectId: string) => rows('SELECT id FROM claim.claim_checks WHERE project_id = $1', [projectId]);
  const balanced = async (projectId: string) => (await harness.domain.reconciliation.get(projectId, undefined)).balanced;

  describe('the point currency', () => {
    it('has no chain and no address, counts whole points, and is listed as such', async () => {
      const projectId = randomUUID();
      const xp = await harness.domain.currencies.create(projectId, points({ name: ' XP ' }));
      expect(xp).toMatchObject({ chainId: null, address: null, name: 'XP', decimals: 0, type: 'point' });
      expect((await harness.domain.currencies.list(projectId, toPage())).records).toEqual([xp]);
    });

    it('refuses a chain id, an address or decimals other than 0, naming each field, and stores nothing', async () => {
      const projectId = randomUUID();
      await expect(
        harness.domain.currencies.create(projectId, points({ chainId: '8453', address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', decimals: 18 })),
      ).rejects.toMatchObject({
        kind: 'invalid_argument',
        code: 'VALIDATION_FAILED',
        details: [
          { field: 'chain_id', reason: 'a point currency has no chain: leave chain_id out' },
          { field: 'address', reason: 'a point currency has no address: leave address out' },
          { field: 'decimals', reason: 'a point currency counts whole points: decimals must be 0' },
        ],
      });
      expect((await harness.domain.currencies.list(projectId, toPage())).total).toBe(0);
    });

    it('is one per project: a second is refused (POINT_CURRENCY_EXISTS), another project has its own', async () => {
      const projectId = randomUUID();
      await harness.domain.currencies.create(projectId, points());
      await expect(harness.domain.currencies.create(projectId, points({ name: 'Karma' }))).rejects.toMatchObject({
        kind: 'already_exists',
        code: 'POINT_CURRENCY_EXISTS',
      });
      await harness.domain.currencies.create(randomUUID(), points());
      expect((await harness.domain.currencies.list(projectId, toPage())).total).toBe(1);
    });

    it('still requires a chain and an address of a chain currency', async () => {
      await expect(
        harness.domain.currencies.create(randomUUID(), { chainId: undefined, address: undefined, name: 'USDC', decimals: 6, type: 'erc20' }),
      ).rejects.toMatchObject({
        details: [
          { field: 'chain_id', reason: 'must be a positive chain id' },
          { field: 'address', reason: 'must be 0x followed by 40 hex digits' },
        ],
      });
    });
  });

  describe('the ledger', () => {
    it('credits points paid at once to the balances, in no claim check, on the points leaderboard', async () => {
      const { projectId, affiliate } = await project();
      const { user } = await pay(projectId, affiliate.code);
      await pay(projectId, affiliate.code);
      expect(await balance(projectId, affiliate.user)).toEqual({ balance: 200n, credited: 200n, takenBack: 0n });
      expect(await balance(projectId, user)).toEqual({ balance: 40n, credited: 40n, takenBack: 0n });
      expect(await rows(`SELECT status FROM claim.movements WHERE project_id = $1 AND claim_check_id IS NOT NULL`, [projectId])).toEqual([]);
      expect(await checks(projectId)).toEqual([]);
      const board = await harness.domain.ledger.leaderboard(
        projectId,
        { currencyAddress: undefined, chainId: undefined, userType: 'affiliate', user: undefined, points: true },
        toPage(),
      );
      expect(board.records.map((entry) => [entry.user.identifier, entry.totalAmount, entry.totalAttributions])).toEqual([
        [affiliate.user.identifier, 200n, 2n],
      ]);
      expect(await balanced(projectId)).toBe(true);
    });

    it('lists the top balances highest first, and a user never credited at 0', async () => {
      const { projectId, affiliate } = await project();
      const { user } = await pay(projectId, affiliate.code);
      const { records, total } = await harness.domain.points.balances(projectId, undefined, toPage());
      expect(records.map((record) => [record.user.identifier, record.balance])).toEqual([
        [affiliate.user.identifier, 100n],
        [user.identifier, 40n],
      ]);
      expect(total).toBe(2);
      expect(await balance(projectId, newUser())).toEqual({ balance: 0n, credited: 0n, takenBack: 0n });
    });

    it('holds points until the hold passes, then credits them (not before)', async () => {
      const { projectId, affiliate } = await project({ holdDays: 2 });
      const { user } = await pay(projectId, affiliate.code);
      expect(await balance(projectId, user)).toEqual({ balance: 0n, credited: 0n, takenBack: 0n });
      harness.clock.advance(2 * DAY - 1);
      await harness.domain.decisions.releaseDue(1_000);
      expect(await balance(projectId, user)).toEqual({ balance: 0n, credited: 0n, takenBack: 0n });
      harness.clock.advance(1);
      await harness.domain.decisions.releaseDue(1_000);
      expect(await balance(projectId, user)).toEqual({ balance: 40n, credited: 40n, takenBack: 0n });
      expect(await balance(projectId, affiliate.user)).toEqual({ balance: 100n, credited: 100n, takenBack: 0n });
      expect(await checks(projectId)).toEqual([]);
      expect(await balanced(projectId)).toBe(true);
    });

    it('credits approved points, and never declined ones', async () => {
      const { projectId, affiliate } = await project({ requireApproval: true });
      const approved = await pay(projectId, affiliate.code);
      const declined = await pay(projectId, affiliate.code);
      await harness.domain.decisions.approve(projectId, [approved.id], undefined, KEY);
      await harness.domain.decisions.decline(projectId, [declined.id], 'fraud', KEY);
      expect(await balance(projectId, approved.user)).toEqual({ balance: 40n, credited: 40n, takenBack: 0n });
      expect(await balance(projectId, declined.user)).toEqual({ balance: 0n, credited: 0n, takenBack: 0n });
      expect(await balance(projectId, affiliate.user)).toEqual({ balance: 100n, credited: 100n, takenBack: 0n });
      expect(await checks(projectId)).toEqual([]);
      expect(await balanced(projectId)).toBe(true);
    });

    it('takes a reversal of credited points back from the balance and off the points board', async () => {
      const { projectId, affiliate } = await project();
      const { id, user } = await pay(projectId, affiliate.code);
      const reverse = (conversionId: string, shareBps: number) =>
        harness.domain.reversals.reverse(projectId, { conversionId, shareBps, reversalId: `r-${randomUUID()}`, reason: 'refunded', reversedBy: KEY });
      const { reversal } = await reverse(id, 2_500);
      expect(reversal.movements.map((part) => [part.kind, part.amount, part.was, part.fromPoints, part.fromCheck, part.toDebt])).toEqual([
        ['affiliate_payout', 25n, 'available', 25n, 0n, 0n],
        ['end_user_payout', 10n, 'available', 10n, 0n, 0n],
      ]);
      expect(await balance(projectId, user)).toEqual({ balance: 30n, credited: 40n, takenBack: 10n });
      expect(await balance(projectId, affiliate.user)).toEqual({ balance: 75n, credited: 100n, takenBack: 25n });
      // All of what is left: the balance reaches zero, never below.
      await reverse(id, 7_500);
      expect(await balance(projectId, user)).toEqual({ balance: 0n, credited: 40n, takenBack: 40n });
      expect(await balance(projectId, affiliate.user)).toEqual({ balance: 0n, credited: 100n, takenBack: 100n });
      const board = await harness.domain.ledger.leaderboard(
        projectId,
        { currencyAddress: undefined, chainId: undefined, userType: 'affiliate', user: undefined, points: true },
        toPage(),
      );
      expect(board.records.map((entry) => entry.totalAmount)).toEqual([0n]);
      expect(await balanced(projectId)).toBe(true);
    });

    it('credits a held movement net of what a reversal took while it was pending', async () => {
      const { projectId, affiliate } = await project({ holdDays: 1 });
      const { id, user } = await pay(projectId, affiliate.code);
      await harness.domain.reversals.reverse(projectId, {
        conversionId: id,
        shareBps: 5_000,
        reversalId: `r-${randomUUID()}`,
        reason: 'refunded',
        reversedBy: KEY,
      });
      harness.clock.advance(DAY);
      await harness.domain.decisions.releaseDue(1_000);
      expect(await balance(projectId, user)).toEqual({ balance: 20n, credited: 20n, takenBack: 0n });
      expect(await balance(projectId, affiliate.user)).toEqual({ balance: 50n, credited: 50n, takenBack: 0n });
      expect(await balanced(projectId)).toBe(true);
    });

    it('credits what the caps leave', async () => {
      const { projectId, affiliate } = await project({ caps: { perConversion: '60' } });
      const { user } = await pay(projectId, affiliate.code);
      expect(await balance(projectId, user)).toEqual({ balance: 40n, credited: 40n, takenBack: 0n });
      expect(await balance(projectId, affiliate.user)).toEqual({ balance: 60n, credited: 60n, takenBack: 0n });
      const [cut] = await rows<{ capped: string }>('SELECT sum(capped_amount)::text AS capped FROM claim.movements WHERE project_id = $1', [
        projectId,
      ]);
      expect(cut!.capped).toBe('40');
      expect(await balanced(projectId)).toBe(true);
    });

    it('answers POINT_CURRENCY_NOT_FOUND for the balances and board of a project without points', async () => {
      const projectId = randomUUID();
      await expect(harness.domain.points.balances(projectId, undefined, toPage())).rejects.toMatchObject({ code: 'POINT_CURRENCY_NOT_FOUND' });
      await expect(
        harness.domain.ledger.leaderboard(
          projectId,
          { currencyAddress: undefined, chainId: undefined, userType: 'affiliate', user: undefined, points: true },
          toPage(),
        ),
      ).rejects.toMatchObject({ code: 'POINT_CURRENCY_NOT_FOUND' });
    });
  });

  /**
   * The ledger identity with points and money side by side, over random streams: conversions paid in
   * points (some held, some waiting for approval) and in a token, holds passing, approvals, declines
   * and reversals of random shares. After every step the reconciliation balances (for points: the
   * balances sum to what is available), every user's balance is exactly its available point
   * movements net of their reversals, and no point movement is in a claim check.
   */
  describe('the ledger identity with points', () => {
    type Step =
      | { kind: 'pay'; name: 'quest' | 'held' | 'approved' | 'trade'; rewardBase: number; user: number }
      | { kind: 'pass'; days: number }
      | { kind: 'decide'; approve: boolean; which: number }
      | { kind: 'reverse'; which: number; shareBps: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({
        kind: fc.constant('pay' as const),
        name: fc.constantFrom('quest' as const, 'held' as const, 'approved' as const, 'trade' as const),
        rewardBase: fc.integer({ min: 1, max: 1_000_000 }),
        user: fc.integer({ min: 0, max: 2 }),
      }),
      fc.record({ kind: fc.constant('pass' as const), days: fc.integer({ min: 0, max: 2 }) }),
      fc.record({ kind: fc.constant('decide' as const), approve: fc.boolean(), which: fc.nat() }),
      fc.record({ kind: fc.constant('reverse' as const), which: fc.nat(), shareBps: fc.integer({ min: 1, max: 10_000 }) }),
    );

    async function expectIdentity(projectId: string, pointId: string) {
      expect(await balanced(projectId)).toBe(true);
      const drift = await rows(
        `SELECT b.identifier FROM claim.point_balances b
         WHERE b.project_id = $1 AND b.balance <> (
           SELECT coalesce(sum(m.amount - coalesce((SELECT sum(r.amount) FROM claim.movement_reversals r WHERE r.movement_id = m.id), 0)), 0)
           FROM claim.movements m
           WHERE m.project_id = b.project_id AND m.currency_id = b.currency_id AND m.identifier = b.identifier AND m.status = 'available')`,
        [projectId],
      );
      expect(drift).toEqual([]);
      expect(
        await rows('SELECT id FROM claim.movements WHERE project_id = $1 AND currency_id = $2 AND claim_check_id IS NOT NULL', [projectId, pointId]),
      ).toEqual([]);
    }

    it('holds after every step', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
          const projectId = randomUUID();
          const xp = await harness.domain.currencies.create(projectId, points());
          const usdc = await harness.domain.currencies.create(projectId, {
            chainId: '8453',
            address: `0x${randomUUID().replace(/-/g, '')}00000000`,
            name: 'USDC',
            decimals: 6,
            type: 'erc20',
          });
          const pointsTerms = { endUser: { bps: 300 }, affiliate: { bps: 1_000 } };
          await harness.domain.terms.put(projectId, 'quest', termsInput(xp.id, pointsTerms));
          await harness.domain.terms.put(projectId, 'held', termsInput(xp.id, { ...pointsTerms, holdDays: 1 }));
          await harness.domain.terms.put(projectId, 'approved', termsInput(xp.id, { ...pointsTerms, requireApproval: true }));
          await harness.domain.terms.put(projectId, 'trade', termsInput(usdc.id, pointsTerms));
          const affiliate = newAffiliate(harness, projectId);
          const users = [newUser(), newUser(), newUser()];
          for (const user of users) refer(harness, projectId, user, affiliate.code);
          const paid: string[] = [];
          for (const next of steps) {
            if (next.kind === 'pay') {
              const input = conversion({ name: next.name, user: users[next.user]!, rewardBase: String(next.rewardBase) });
              await harness.domain.conversions.submitMany(projectId, [input]);
              await harness.domain.payouts.payBatch(await batchOf(harness, projectId, input.id));
              paid.push(input.id);
            } else if (next.kind === 'pass') {
              harness.clock.advance(next.days * DAY);
              await harness.domain.decisions.releaseDue(1_000);
            } else if (paid.length > 0 && next.kind === 'decide') {
              const id = paid[next.which % paid.length]!;
              if (next.approve) await harness.domain.decisions.approve(projectId, [id], undefined, KEY);
              else await harness.domain.decisions.decline(projectId, [id], 'no', KEY);
            } else if (paid.length > 0 && next.kind === 'reverse') {
              const conversionId = paid[next.which % paid.length]!;
              await harness.domain.reversals
                .reverse(projectId, { conversionId, shareBps: next.shareBps, reversalId: `r-${randomUUID()}`, reason: 'refunded', reversedBy: KEY })
                // A share past what is left of the conversion is refused, and changes nothing.
                .catch((error: { code?: string }) => {
                  if (error.code !== 'REVERSAL_SHARE_EXCEEDED') throw error;
                });
            }
            await expectIdentity(projectId, xp.id);
          }
        }),
        { numRuns: 15, endOnFailure: true },
      );
    });
  });
});
