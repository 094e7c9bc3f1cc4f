import type { PayoutTermsInput } from '../../../services/claim/domain/payout-terms.service';
import { startClaimDomain } from '../../helpers/claim-domain';
import { rowsOf, useDomainHarness } from '../../helpers/domain';
import { conversion, newAffiliate, newProject, newUser, pay, refer, termsInput } from './fixtures';

const DAY = 86_400_000;
const KEY = 'key-admin-rebates';

type User = { identifier: string; identifierType: string };

interface Row {
  conversion_id: string;
  kind: string;
  rebate: boolean;
  identifier: string;
  amount: string;
  capped_amount: string;
  capped_by: string | null;
  status: string;
  pending_reason: string | null;
  in_check: boolean;
}

/**
 * Rebates (docs/claims.md#rebates): the rebate rate of the code that referred a user (bps of the
 * affiliate's reward, 0..2000) goes to that user as an end_user_payout marked `rebate`, taken from the
 * affiliate's affiliate_payout: rebate = floor(reward × bps / 10,000), the affiliate keeps the rest, the
 * two add up to the reward. The rate is frozen on the conversion; the rebate follows the terms' hold
 * and approval and a flagged affiliate's review; a reversal takes its share of both parts; caps cut the
 * affiliate's whole reward first, then it is split. The rate is set on the (fake) agency's code: the
 * agency's side (affiliate_codes.user_rebate_rate_bps answered by BatchResolveAttribution) is tested in
 * test/medium/agency/attribution.test.ts.
 */
describe('rebates (domain)', () => {
  const harness = useDomainHarness(() => startClaimDomain());

  const rows = rowsOf(harness);

  async function project(fields: Partial<PayoutTermsInput>, name = 'trade') {
    const created = await newProject(harness);
    await harness.domain.terms.put(created.projectId, name, termsInput(created.currencyId, fields));
    return created;
  }

  /** An affiliate whose code gives `bps` of its reward, and a user it referred. */
  function referredWithRebate(projectId: string, bps: number) {
    const affiliate = newAffiliate(harness, projectId);
    harness.agency.setRebateRate(projectId, affiliate.user, bps);
    const user = newUser();
    refer(harness, projectId, user, affiliate.code);
    return { affiliate, user };
  }

  const movements = (projectId: string) =>
    rows<Row & Record<string, unknown>>(
      `SELECT conversion_id, kind, rebate, identifier, amount::text, capped_amount::text, capped_by, status, pending_reason,
              claim_check_id IS NOT NULL AS in_check
       FROM claim.movements WHERE project_id = $1 ORDER BY conversion_id, kind, rebate`,
      [projectId],
    );
  const paid = (kind: string, rebate: boolean, user: User, amount: string) =>
    expect.objectContaining({ kind, rebate, identifier: user.identifier, amount });
  const frozenRate = async (projectId: string, id: string) =>
    (
      await rows<{ bps: number | null }>('SELECT user_rebate_rate_bps AS bps FROM claim.conversions WHERE project_id = $1 AND id = $2', [
        projectId,
        id,
      ])
    )[0]?.bps;
  const balanced = async (projectId: string) => (await harness.domain.reconciliation.get(projectId, undefined)).balanced;

  it.each([
    // reward 123,456 (10% of 1,234,567); 12.34%: 15,234.47 floors to 15,234
    { rewardBase: '1234567', affiliate: { bps: 1_000 }, bps: 1_234, reward: 123_456n, rebate: '15234', kept: '108222' },
    // a fixed reward of 999 at 19.99%: 199.7001 floors to 199
    { rewardBase: '1', affiliate: { fixed: '999' }, bps: 1_999, reward: 999n, rebate: '199', kept: '800' },
    // the most a code gives: 20%, exactly
    { rewardBase: '10000', affiliate: { fixed: '12345' }, bps: 2_000, reward: 12_345n, rebate: '2469', kept: '9876' },
    // 1 bps of 9,999: 0.9999 floors to nothing: no rebate movement, the affiliate keeps it all
    { rewardBase: '1', affiliate: { fixed: '9999' }, bps: 1, reward: 9_999n, rebate: null, kept: '9999' },
  ])('splits a reward of $affiliate at $bps bps exactly: rebate floor(reward × bps / 10,000), the affiliate the rest', async (row) => {
    const { projectId } = await project({ affiliate: row.affiliate });
    const { affiliate, user } = referredWithRebate(projectId, row.bps);
    const input = conversion({ user, rewardBase: row.rewardBase });
    await pay(harness, projectId, [input]);
    const expected = [paid('affiliate_payout', false, affiliate.user, row.kept)];
    if (row.rebate !== null) expected.push(paid('end_user_payout', true, user, row.rebate));
    const written = await movements(projectId);
    expect(written).toEqual(expected);
    expect(written.reduce((sum, movement) => sum + BigInt(movement.amount), 0n)).toBe(row.reward);
    expect(await frozenRate(projectId, input.id)).toBe(row.bps);
    // The user's rebate is in its end-user check; the affiliate's check holds what it kept.
    const checks = await rows<{ identifier: string; reason: string; amount: string }>(
      'SELECT identifier, reason, amount::text FROM claim.claim_checks WHERE project_id = $1 ORDER BY reason',
      [projectId],
    );
    expect(checks).toEqual([
      { identifier: affiliate.user.identifier, reason: 'affiliate', amount: row.kept },
      ...(row.rebate === null ? [] : [{ identifier: user.identifier, reason: 'end_user', amount: row.rebate }]),
    ]);
    expect(await balanced(projectId)).toBe(true);
  });

  it('pays no rebate at a rate of 0 (or none), and pays a user both its own reward and its rebate, apart', async () => {
    const { projectId } = await project({ endUser: { fixed: '50' }, affiliate: { fixed: '1000' } });
    const zero = referredWithRebate(projectId, 0);
    const tenth = referredWithRebate(projectId, 1_000);
    const [first, second] = [conversion({ id: 'a-zero', user: zero.user }), conversion({ id: 'b-tenth', user: tenth.user })];
    expect(await pay(harness, projectId, [first, second])).toEqual({ recorded: 2, movements: 5 });
    expect(await movements(projectId)).toEqual([
      paid('affiliate_payout', false, zero.affiliate.user, '1000'),
      paid('end_user_payout', false, zero.user, '50'),
      paid('affiliate_payout', false, tenth.affiliate.user, '900'),
      paid('end_user_payout', false, tenth.user, '50'),
      paid('end_user_payout', true, tenth.user, '100'),
    ]);
    expect(await frozenRate(projectId, first.id)).toBe(0);
    // The ledger view marks the rebate, and the conversion's attribution carries the frozen rate.
    const record = await harness.domain.ledger.conversion(projectId, second.id);
    expect(record.attribution?.rebateBps).toBe(1_000);
    expect(record.movements.map((movement) => [movement.kind, movement.rebate, movement.amount])).toEqual([
      ['affiliate_payout', false, 900n],
      ['end_user_payout', false, 50n],
      ['end_user_payout', true, 100n],
    ]);
  });

  it('freezes the rate on the conversion: a later change pays later conversions only', async () => {
    const { projectId } = await project({ affiliate: { fixed: '1000' } });
    const { affiliate, user } = referredWithRebate(projectId, 500);
    const before = conversion({ id: 'a-before', user });
    await pay(harness, projectId, [before]);
    harness.agency.setRebateRate(projectId, affiliate.user, 2_000);
    const after = conversion({ id: 'b-after', user });
    await pay(harness, projectId, [after]);
    expect(await frozenRate(projectId, before.id)).toBe(500);
    expect(await frozenRate(projectId, after.id)).toBe(2_000);
    expect((await movements(projectId)).map((row) => [row.conversion_id, row.kind, row.rebate, row.amount])).toEqual([
      ['a-before', 'affiliate_payout', false, '950'],
      ['a-before', 'end_user_payout', true, '50'],
      ['b-after', 'affiliate_payout', false, '800'],
      ['b-after', 'end_user_payout', true, '200'],
    ]);
  });

  it('a rebate follows the terms’ hold: pending in no check, released with the affiliate’s part', async () => {
    const { projectId } = await project({ affiliate: { fixed: '1000' }, holdDays: 2 });
    const { user } = referredWithRebate(projectId, 1_500);
    const availableAt = new Date(harness.clock.now().getTime() + 2 * DAY);
    await pay(harness, projectId, [conversion({ user })]);
    expect(await movements(projectId)).toEqual([
      expect.objectContaining({ kind: 'affiliate_payout', amount: '850', status: 'pending', pending_reason: 'hold', in_check: false }),
      expect.objectContaining({ kind: 'end_user_payout', rebate: true, amount: '150', status: 'pending', pending_reason: 'hold', in_check: false }),
    ]);
    harness.clock.set(availableAt);
    await harness.domain.decisions.releaseDue(1_000);
    expect((await movements(projectId)).map((row) => [row.rebate, row.status, row.in_check])).toEqual([
      [false, 'available', true],
      [true, 'available', true],
    ]);
    expect(await balanced(projectId)).toBe(true);
  });

  it('a rebate waits for approval with its conversion: approved or declined together', async () => {
    const { projectId } = await project({ affiliate: { fixed: '1000' }, requireApproval: true });
    const approved = referredWithRebate(projectId, 1_000);
    const declined = referredWithRebate(projectId, 1_000);
    const [yes, no] = [conversion({ id: 'a-yes', user: approved.user }), conversion({ id: 'b-no', user: declined.user })];
    await pay(harness, projectId, [yes, no]);
    expect((await movements(projectId)).map((row) => [row.conversion_id, row.rebate, row.status, row.pending_reason])).toEqual([
      ['a-yes', false, 'pending', 'approval'],
      ['a-yes', true, 'pending', 'approval'],
      ['b-no', false, 'pending', 'approval'],
      ['b-no', true, 'pending', 'approval'],
    ]);
    await harness.domain.decisions.approve(projectId, [yes.id], undefined, KEY);
    await harness.domain.decisions.decline(projectId, [no.id], 'not this one', KEY);
    expect((await movements(projectId)).map((row) => [row.conversion_id, row.rebate, row.status, row.in_check])).toEqual([
      ['a-yes', false, 'available', true],
      ['a-yes', true, 'available', true],
      ['b-no', false, 'declined', false],
      ['b-no', true, 'declined', false],
    ]);
    expect(await balanced(projectId)).toBe(true);
  });

  it('a flagged affiliate’s rebate waits for review with its reward, while the user’s own reward follows the terms', async () => {
    const { projectId } = await project({ endUser: { fixed: '7' }, affiliate: { fixed: '1000' } });
    const { affiliate, user } = referredWithRebate(projectId, 1_000);
    harness.agency.flag(projectId, affiliate.user);
    await pay(harness, projectId, [conversion({ user })]);
    expect((await movements(projectId)).map((row) => [row.kind, row.rebate, row.amount, row.status, row.pending_reason])).toEqual([
      ['affiliate_payout', false, '900', 'pending', 'review'],
      ['end_user_payout', false, '7', 'available', null],
      ['end_user_payout', true, '100', 'pending', 'review'],
    ]);
  });

  it('a reversal takes the same share from the affiliate’s part and from the rebate (each floored)', async () => {
    const { projectId } = await project({ affiliate: { fixed: '1003' } });
    const { user } = referredWithRebate(projectId, 1_700); // rebate floor(1003 × 0.17) = 170, the affiliate 833
    const input = conversion({ user });
    await pay(harness, projectId, [input]);
    const { reversal } = await harness.domain.reversals.reverse(projectId, {
      conversionId: input.id,
      reversalId: 'refund-1',
      shareBps: 3_333,
      reason: 'refunded',
      reversedBy: KEY,
    });
    // floor(833 × 0.3333) = 277, floor(170 × 0.3333) = 56
    expect(reversal.movements.map((part) => [part.kind, part.rebate, part.amount])).toEqual([
      ['affiliate_payout', false, 277n],
      ['end_user_payout', true, 56n],
    ]);
    // The reversed event marks what came back from the rebate: the agency takes back from the affiliate only its own part.
    const [event] = await rows<{ reversals: Array<{ kind: string; amount: string; rebate?: true }> }>(
      `SELECT payload->'reversals' AS reversals FROM claim.outbox WHERE type = 'claim.conversion.reversed' AND payload->>'conversion_id' = $1`,
      [input.id],
    );
    expect(event?.reversals.map((part) => [part.kind, part.amount, part.rebate])).toEqual([
      ['affiliate_payout', '277', undefined],
      ['end_user_payout', '56', true],
    ]);
    const checks = await rows<{ reason: string; amount: string }>(
      'SELECT reason, amount::text FROM claim.claim_checks WHERE project_id = $1 ORDER BY reason',
      [projectId],
    );
    expect(checks).toEqual([
      { reason: 'affiliate', amount: String(833 - 277) },
      { reason: 'end_user', amount: String(170 - 56) },
    ]);
    const listed = await harness.domain.ledger.conversion(projectId, input.id);
    expect(listed.movements.map((movement) => [movement.rebate, movement.reversed])).toEqual([
      [false, 277n],
      [true, 56n],
    ]);
    expect(await balanced(projectId)).toBe(true);
  });

  it('caps the affiliate’s whole reward before the split: the per-conversion cap', async () => {
    const { projectId } = await project({ affiliate: { fixed: '800' }, caps: { perConversion: '500' } });
    const { affiliate, user } = referredWithRebate(projectId, 2_000);
    await pay(harness, projectId, [conversion({ user })]);
    // 800 capped to 500 (300 cut), then split: 100 to the user, 400 kept.
    expect(await movements(projectId)).toEqual([
      expect.objectContaining({
        kind: 'affiliate_payout',
        identifier: affiliate.user.identifier,
        amount: '400',
        capped_amount: '300',
        capped_by: 'per_conversion',
      }),
      expect.objectContaining({
        kind: 'end_user_payout',
        rebate: true,
        identifier: user.identifier,
        amount: '100',
        capped_amount: '0',
        capped_by: null,
      }),
    ]);
    expect(await balanced(projectId)).toBe(true);
  });

  it('the affiliate’s window counts its rewards before their rebates, within a batch and across batches; nothing is split from a reward cut to nothing', async () => {
    const { projectId } = await project({ affiliate: { fixed: '800' }, caps: { perAffiliateWindow: { amount: '1000', days: 30 } } });
    const affiliate = newAffiliate(harness, projectId);
    harness.agency.setRebateRate(projectId, affiliate.user, 2_000);
    const users = [newUser(), newUser(), newUser()];
    for (const user of users) refer(harness, projectId, user, affiliate.code);
    // First batch: one conversion, 800 whole (640 kept, 160 rebated): the window counts 800.
    await pay(harness, projectId, [conversion({ id: 'a-1', user: users[0]! })]);
    // Second batch: 200 of room left (read from the ledger: the kept part and the rebate), then none.
    await pay(harness, projectId, [conversion({ id: 'b-2', user: users[1]! }), conversion({ id: 'c-3', user: users[2]! })]);
    expect(
      (await movements(projectId)).map((row) => [row.conversion_id, row.kind, row.rebate, row.amount, row.capped_amount, row.capped_by]),
    ).toEqual([
      ['a-1', 'affiliate_payout', false, '640', '0', null],
      ['a-1', 'end_user_payout', true, '160', '0', null],
      ['b-2', 'affiliate_payout', false, '160', '600', 'per_affiliate_window'],
      ['b-2', 'end_user_payout', true, '40', '0', null],
      ['c-3', 'affiliate_payout', false, '0', '800', 'per_affiliate_window'],
    ]);
    expect(await balanced(projectId)).toBe(true);
  });

  it('a rebate is not held to the end user’s cap, nor counted toward it', async () => {
    const { projectId } = await project({ endUser: { fixed: '100' }, affiliate: { fixed: '1000' }, caps: { perEndUser: '150' } });
    const { user } = referredWithRebate(projectId, 2_000);
    await pay(harness, projectId, [conversion({ id: 'a-1', user })]);
    await pay(harness, projectId, [conversion({ id: 'b-2', user })]);
    expect((await movements(projectId)).map((row) => [row.conversion_id, row.kind, row.rebate, row.amount, row.capped_by])).toEqual([
      ['a-1', 'affiliate_payout', false, '800', null],
      ['a-1', 'end_user_payout', false, '100', null],
      ['a-1', 'end_user_payout', true, '200', null],
      ['b-2', 'affiliate_payout', false, '800', null],
      ['b-2', 'end_user_payout', false, '50', 'per_end_user'],
      ['b-2', 'end_user_payout', true, '200', null],
    ]);
  });

  it('the ledger keeps the mark: never changed, only on an end user’s payout, one rebate per conversion and user', async () => {
    const { projectId } = await project({ endUser: { fixed: '5' }, affiliate: { fixed: '1000' } });
    const { user } = referredWithRebate(projectId, 1_000);
    const input = conversion({ user });
    await pay(harness, projectId, [input]);
    const [rebate] = await rows<{ id: string; claim_check_id: string; currency_id: string }>(
      'SELECT id::text, claim_check_id, currency_id FROM claim.movements WHERE project_id = $1 AND rebate',
      [projectId],
    );
    await expect(harness.sql.query('UPDATE claim.movements SET rebate = false WHERE id = $1', [rebate!.id])).rejects.toThrow(/append-only/);
    const insert = (kind: string) =>
      harness.sql.query(
        `INSERT INTO claim.movements (project_id, conversion_id, kind, identifier_type, identifier, currency_id, amount, claim_check_id, available_at, created_at, rebate)
         VALUES ($1, $2, $3, 'evm_address', $4, $5, 1, $6, now(), now(), true)`,
        [projectId, input.id, kind, user.identifier, rebate!.currency_id, rebate!.claim_check_id],
      );
    await expect(insert('affiliate_payout')).rejects.toMatchObject({ code: '23514', constraint: 'movements_rebate_kind_check' });
    await expect(insert('end_user_payout')).rejects.toMatchObject({ code: '23505', constraint: 'movements_conversion_kind_beneficiary_rebate_key' });
  });

  it('the processed event carries what the affiliate kept and the user’s rebate, marked', async () => {
    const { projectId } = await project({ affiliate: { fixed: '1000' } });
    const { affiliate, user } = referredWithRebate(projectId, 1_250);
    const input = conversion({ user });
    await pay(harness, projectId, [input]);
    const [event] = await rows<{ payouts: unknown }>(
      `SELECT payload->'payouts' AS payouts FROM claim.outbox WHERE type = 'claim.conversion.processed' AND payload->>'conversion_id' = $1`,
      [input.id],
    );
    expect(event?.payouts).toEqual([
      { kind: 'affiliate_payout', user: { identifier: affiliate.user.identifier, identifier_type: 'evm_address' }, amount: '875', level: 1 },
      { kind: 'end_user_payout', user: { identifier: user.identifier, identifier_type: 'evm_address' }, amount: '125', rebate: true },
    ]);
  });
});
