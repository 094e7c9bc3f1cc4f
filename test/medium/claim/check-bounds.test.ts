import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { Hex } from 'viem' with { 'resolution-mode': 'import' };
import { voucherProblems } from '../../../services/claim/domain/voucher';
import { TestClock } from '../../helpers/clock';
import { reconciliation, referredPair, unbalanced, type User } from './claim-check-fixtures';
import { newProjectOnChain, useClaimDomainOnChain } from './claim-chain';
import { batchOf, conversion, newUser, termsInput } from './fixtures';

const MAX = 2n ** 256n - 1n;
const KEYS: Hex[] = [`0x${'3c'.repeat(32)}`, `0x${'4d'.repeat(32)}`];
const TTL = 3_600;
const CONFIRMATIONS = 2;

interface CheckRow {
  id: string;
  identifier: string;
  reason: string;
  status: string;
  amount: bigint;
  full: boolean;
  movements: bigint;
  credits: bigint;
}

/**
 * No claim check ever holds more than 2^256 − 1, the most a voucher pays: a payout (or an expired
 * voucher's credit) that would take the open check of its (user, currency, reason) past it makes
 * that check full (still open, closable) and goes to a new open check. Rules case by case, then the
 * property over random streams of fixed and bps rewards up to the bounds, closes, expiries and
 * credits back: every check closes, and movements = open + closed + claimed (+ credits) throughout.
 */
describe('claim checks never pass 2^256 − 1 (domain, ClaimManager on the in-process EVM)', () => {
  const clock = new TestClock();
  const { medium, harness } = useClaimDomainOnChain(clock, { keys: KEYS, ttlSeconds: TTL, confirmations: CONFIRMATIONS });
  beforeEach(() => medium.syncClock(clock));

  /** A project on the chain: `fixed` pays the end user `endUserFixed`, `share` pays the end user and the affiliate bps of reward_base. */
  async function project(endUserFixed: bigint = MAX, shares = { endUser: 10_000, affiliate: 10_000 }) {
    const { projectId, currencyId } = await newProjectOnChain(harness, medium);
    await harness.domain.terms.put(projectId, 'fixed', termsInput(currencyId, { endUser: { fixed: endUserFixed.toString() } }));
    await harness.domain.terms.put(
      projectId,
      'share',
      termsInput(currencyId, { endUser: { bps: shares.endUser }, affiliate: { bps: shares.affiliate } }),
    );
    return { projectId, currencyId };
  }

  /** Submits and pays conversions as one batch (in the id order given: the ledger pays a batch in id order). */
  async function pay(projectId: string, inputs: Array<{ user: User; name: 'fixed' | 'share'; rewardBase: bigint }>) {
    const conversions = inputs.map((input, index) =>
      conversion({
        id: `c${String(index).padStart(3, '0')}-${randomUUID()}`,
        name: input.name,
        user: input.user,
        rewardBase: input.rewardBase.toString(),
      }),
    );
    await harness.domain.conversions.submitMany(projectId, conversions);
    await harness.domain.payouts.payBatch(await batchOf(harness, projectId, conversions[0]!.id));
    return conversions;
  }

  const checksOf = async (projectId: string): Promise<CheckRow[]> =>
    (
      await harness.sql.query<Omit<CheckRow, 'amount' | 'movements' | 'credits'> & { amount: string; movements: string; credits: string }>(
        `SELECT cc.id, cc.identifier, cc.reason, cc.status, cc.amount::text, cc.full_at IS NOT NULL AS full,
                coalesce((SELECT sum(amount) FROM claim.movements m WHERE m.claim_check_id = cc.id), 0)::text AS movements,
                coalesce((SELECT sum(amount) FROM claim.claim_check_credits k WHERE k.open_check_id = cc.id), 0)::text AS credits
         FROM claim.claim_checks cc WHERE cc.project_id = $1
         -- In the order the ledger filled them: by their first movement (a check holding credits only, last).
         ORDER BY (SELECT min(m.id) FROM claim.movements m WHERE m.claim_check_id = cc.id) NULLS LAST, cc.created_at, cc.id`,
        [projectId],
      )
    ).rows.map((row) => ({ ...row, amount: BigInt(row.amount), movements: BigInt(row.movements), credits: BigInt(row.credits) }));

  /** What must hold at every moment: the sums, each check exactly its movements and credits, every check signable, one open check per key that takes movements. */
  async function expectSound(projectId: string) {
    expect(unbalanced(await reconciliation(harness, projectId))).toEqual([]);
    const checks = await checksOf(projectId);
    for (const check of checks) {
      expect({ id: check.id, amount: check.amount }).toEqual({ id: check.id, amount: check.movements + check.credits });
      expect(check.amount > 0n && check.amount <= MAX).toBe(true);
    }
    const accepting = checks.filter((check) => check.status === 'open' && !check.full).map((check) => `${check.identifier}|${check.reason}`);
    expect(new Set(accepting).size).toBe(accepting.length);
    return checks;
  }

  const closeAll = async (projectId: string, user: User) => {
    const ids = (await checksOf(projectId))
      .filter((check) => check.identifier === user.identifier && check.status === 'open')
      .map((check) => check.id);
    return ids.length === 0 ? [] : harness.domain.claimChecks.close(projectId, user, ids);
  };
  /** Every voucher past its deadline on a final block, and the watcher caught up: what expired is credited back. */
  const expireAll = async () => {
    await medium.chain.increaseTime(TTL + 600);
    await medium.chain.mine(CONFIRMATIONS);
    await medium.syncClock(clock);
    await harness.domain.watcher.run(medium.chain.chainId);
  };

  describe('rules', () => {
    it('opens a new check for the payout that would take the open one past 2^256 − 1; the full one stays open, and the next payouts go to the new one', async () => {
      const { projectId } = await project(MAX);
      const user = newUser();
      await pay(projectId, [{ user, name: 'share', rewardBase: MAX - 10n }]);
      await pay(projectId, [{ user, name: 'share', rewardBase: 11n }]);
      await pay(projectId, [{ user, name: 'share', rewardBase: 5n }]);
      const checks = await expectSound(projectId);
      expect(checks.map(({ amount, status, full }) => ({ amount, status, full }))).toEqual([
        { amount: MAX - 10n, status: 'open', full: true },
        { amount: 16n, status: 'open', full: false },
      ]);
      // Both close, each into a voucher of what it holds.
      const rows = await closeAll(projectId, user);
      expect(rows.map((row) => [row.amount, row.signed?.signatures.length])).toEqual(
        expect.arrayContaining([
          [MAX - 10n, 2],
          [16n, 2],
        ]),
      );
    });

    it('fills checks in conversion order when one batch alone passes 2^256 − 1, and pays everyone else of the batch as usual', async () => {
      const { projectId } = await project(MAX);
      const whale = newUser();
      const others = [newUser(), newUser()];
      await pay(projectId, [
        { user: whale, name: 'fixed', rewardBase: 0n },
        { user: others[0]!, name: 'share', rewardBase: 700n },
        { user: whale, name: 'share', rewardBase: 1n },
        { user: whale, name: 'fixed', rewardBase: 0n },
        { user: others[1]!, name: 'share', rewardBase: 300n },
        { user: whale, name: 'share', rewardBase: 2n },
      ]);
      const checks = await expectSound(projectId);
      const of = (user: User) => checks.filter((check) => check.identifier === user.identifier).map(({ amount, full }) => [amount, full]);
      // MAX; 1 does not fit: full, a new check; MAX does not fit with 1: full, a new check; 2 does not fit: full, a new check.
      expect(of(whale)).toEqual([
        [MAX, true],
        [1n, true],
        [MAX, true],
        [2n, false],
      ]);
      expect(of(others[0]!)).toEqual([[700n, false]]);
      expect(of(others[1]!)).toEqual([[300n, false]]);
    });

    it('keeps a leaderboard total past 78 digits: ten payouts of 2^256 − 1 to one user in one batch', async () => {
      const { projectId } = await project(MAX);
      const user = newUser();
      await pay(
        projectId,
        Array.from({ length: 10 }, () => ({ user, name: 'fixed' as const, rewardBase: 0n })),
      );
      const checks = await expectSound(projectId);
      expect(checks.map((check) => check.amount)).toEqual(Array.from({ length: 10 }, () => MAX));
      const { rows } = await harness.sql.query(
        "SELECT total_amount::text AS total FROM claim.leaderboard_totals WHERE project_id = $1 AND user_type = 'end_user'",
        [projectId],
      );
      expect(rows).toEqual([{ total: (10n * MAX).toString() }]);
      const totals = await harness.domain.claimChecks.totals(projectId, user);
      expect(totals.unclaimed.map((total) => total.amount)).toEqual([10n * MAX]);
    });

    it('credits an expired voucher back to a new check when the open one cannot take it, exactly once', async () => {
      const { projectId } = await project(MAX);
      const user = newUser();
      await pay(projectId, [{ user, name: 'share', rewardBase: MAX - 5n }]);
      const [closed] = await closeAll(projectId, user);
      expect(closed!.amount).toBe(MAX - 5n);
      await pay(projectId, [{ user, name: 'share', rewardBase: 10n }]);
      await expireAll();
      await expireAll();
      const checks = await expectSound(projectId);
      expect(checks.map(({ amount, status, full }) => ({ amount, status, full }))).toEqual([
        { amount: MAX - 5n, status: 'expired', full: false },
        { amount: 10n, status: 'open', full: true },
        { amount: MAX - 5n, status: 'open', full: false },
      ]);
      expect(checks[2]!.credits).toBe(MAX - 5n);
      expect((await closeAll(projectId, user)).every((row) => row.signed !== null)).toBe(true);
    });

    it('credits an expired voucher into the open check as before when it fits', async () => {
      const { projectId } = await project(MAX);
      const user = newUser();
      await pay(projectId, [{ user, name: 'share', rewardBase: 100n }]);
      await closeAll(projectId, user);
      await pay(projectId, [{ user, name: 'share', rewardBase: 10n }]);
      await expireAll();
      const checks = await expectSound(projectId);
      expect(checks.map(({ amount, status, full }) => ({ amount, status, full }))).toEqual([
        { amount: 100n, status: 'expired', full: false },
        { amount: 110n, status: 'open', full: false },
      ]);
    });
  });

  describe('what was stored before amounts were bounded', () => {
    it('answers CLAIM_CHECK_UNSIGNABLE for an open check past 2^256 − 1, closing nothing of the request', async () => {
      const { projectId, currencyId } = await project(MAX);
      const user = newUser();
      await pay(projectId, [{ user, name: 'share', rewardBase: 40n }]);
      const [sound] = await checksOf(projectId);
      // As migration 0008 leaves such a check: full, past the bound (written before the constraint existed).
      const legacy = randomUUID();
      await harness.sql.query('ALTER TABLE claim.claim_checks DROP CONSTRAINT claim_checks_amount_uint256');
      try {
        await harness.sql.query(
          `INSERT INTO claim.claim_checks (id, project_id, identifier_type, identifier, currency_id, reason, status, amount, movements_count, created_at, updated_at, full_at)
           VALUES ($1, $2, 'evm_address', $3, $4, 'end_user', 'open', $5::numeric, 0, now(), now(), now())`,
          [legacy, projectId, user.identifier, currencyId, (2n * MAX).toString()],
        );
      } finally {
        await harness.sql.query(`ALTER TABLE claim.claim_checks ADD CONSTRAINT claim_checks_amount_uint256 CHECK (amount <= ${MAX}) NOT VALID`);
      }
      await expect(harness.domain.claimChecks.close(projectId, user, [sound!.id, legacy])).rejects.toMatchObject({
        kind: 'conflict',
        code: 'CLAIM_CHECK_UNSIGNABLE',
        message: expect.stringContaining('nothing was closed'),
        details: [{ field: 'claim_check_ids[1]', reason: 'amount must be a positive uint256' }],
      });
      const statuses = await harness.sql.query('SELECT status, count(*)::int AS n FROM claim.claim_checks WHERE project_id = $1 GROUP BY status', [
        projectId,
      ]);
      expect(statuses.rows).toEqual([{ status: 'open', n: 2 }]);
      expect((await harness.sql.query('SELECT count(*)::int AS n FROM claim.vouchers WHERE project_id = $1', [projectId])).rows[0].n).toBe(0);
      // The sound check closes on its own.
      expect((await harness.domain.claimChecks.close(projectId, user, [sound!.id]))[0]).toMatchObject({ amount: 40n, signed: expect.any(Object) });
    });

    it('fails a conversion whose payout would pass 2^256 − 1 (terms stored before the bound), paying the rest of its batch', async () => {
      const { projectId } = await project(MAX);
      await harness.sql.query("UPDATE claim.payout_terms SET end_user_fixed = $2::numeric WHERE project_id = $1 AND conversion_name = 'fixed'", [
        projectId,
        '9'.repeat(78),
      ]);
      const [past, fine] = await pay(projectId, [
        { user: newUser(), name: 'fixed', rewardBase: 0n },
        { user: newUser(), name: 'share', rewardBase: 25n },
      ]);
      expect(await harness.domain.ledger.conversion(projectId, past!.id)).toMatchObject({
        status: 'failed',
        failureReason: expect.stringContaining('past 2^256 - 1'),
        movements: [],
      });
      expect(await harness.domain.ledger.conversion(projectId, fine!.id)).toMatchObject({
        status: 'processed',
        movements: [expect.objectContaining({ amount: 25n })],
      });
      await expectSound(projectId);
    });
  });

  describe('the property', () => {
    const nearMax = fc.oneof(fc.constant(MAX), fc.bigInt({ min: MAX - 1_000n, max: MAX }), fc.bigInt({ min: MAX / 2n - 10n, max: MAX / 2n + 10n }));
    const amount = fc.oneof({ weight: 3, arbitrary: nearMax }, { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: 10n ** 30n }) });
    type Step =
      | { kind: 'pay'; items: Array<{ user: number; name: 'fixed' | 'share'; rewardBase: bigint }> }
      | { kind: 'close'; user: number }
      | { kind: 'expire' };
    /** Users 0 and 1: the first was referred by the affiliate (user 2), so its `share` conversions pay the affiliate too. */
    const USERS = 3;
    const item = fc.record({ user: fc.integer({ min: 0, max: 1 }), name: fc.constantFrom('fixed' as const, 'share' as const), rewardBase: amount });
    const step: fc.Arbitrary<Step> = fc.oneof(
      { weight: 5, arbitrary: fc.record({ kind: fc.constant('pay' as const), items: fc.array(item, { minLength: 1, maxLength: 4 }) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('close' as const), user: fc.integer({ min: 0, max: USERS - 1 }) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('expire' as const) }) },
    );
    const terms = fc.record({ fixed: amount, endUser: fc.constantFrom(1, 5_000, 10_000), affiliate: fc.constantFrom(0, 3_333, 10_000) });

    it('no stream of valid inputs leaves a check that cannot close, and the sums hold after every step', async () => {
      await fc.assert(
        fc.asyncProperty(terms, fc.array(step, { minLength: 3, maxLength: 12 }), async (setup, steps) => {
          await medium.syncClock(clock);
          const { projectId } = await project(setup.fixed, { endUser: setup.endUser, affiliate: setup.affiliate });
          const { affiliate, user: referred } = referredPair(harness, projectId);
          const users: User[] = [referred, newUser(), affiliate];
          for (const current of steps) {
            if (current.kind === 'pay')
              await pay(
                projectId,
                current.items.map((one) => ({ ...one, user: users[one.user]! })),
              );
            else if (current.kind === 'close') await closeAll(projectId, users[current.user]!);
            else await expireAll();
            await expectSound(projectId);
          }
          // Whatever the stream left, every open check of every user closes into a signed voucher of a sound struct.
          for (const user of users) {
            for (const row of await closeAll(projectId, user)) {
              expect(row.signed).not.toBeNull();
              expect(
                voucherProblems({
                  projectAddress: row.projectAddress as Hex,
                  to: row.to as Hex,
                  currency: row.currency as Hex,
                  currencyType: row.currencyType as 0 | 1,
                  amount: row.amount,
                  reason: row.reason as 0 | 1 | 2,
                  tokenId: row.tokenId,
                  deadline: row.signed!.deadline,
                  proof: row.signed!.proof as Hex,
                }),
              ).toEqual([]);
            }
          }
          const left = await expectSound(projectId);
          expect(left.filter((check) => check.status === 'open')).toEqual([]);
        }),
        // A failing stream is reported whole: shrinking would replay it against a chain that has moved on.
        { numRuns: 25, endOnFailure: true },
      );
    }, 600_000);
  });
});
