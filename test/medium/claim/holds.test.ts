import { MAX_AMOUNT } from '../../../services/rules/money';
import { startClaimDomain } from '../../helpers/claim-domain';
import { rowsOf, useDomainHarness } from '../../helpers/domain';
import { checksOffTheirMovements, conversion, movementStatesOf, newAffiliate, newProject, newUser, pay, refer, termsInput } from './fixtures';

const DAY = 86_400_000;
const KEY = 'key-admin-1';

/**
 * Holding and approval (the commission lifecycle's statuses): movements of terms with hold_days or
 * require_approval are written pending, in no check and on no leaderboard; the release
 * (MovementDecisionService.releaseDue, the periodic job's step) makes held ones available exactly
 * when the clock passes their available_at; approvals and declines decide the waiting ones,
 * idempotently; the ledger's trigger lets a status move forward only.
 */
describe('holding and approval (domain)', () => {
  const harness = useDomainHarness(() => startClaimDomain());

  const rows = rowsOf(harness);

  /** A project whose `trade` conversions pay the end user 1% and the referring affiliate 10%, under these hold and approval settings. */
  async function project(holdDays: number, requireApproval: boolean) {
    const created = await newProject(harness);
    await harness.domain.terms.put(
      created.projectId,
      'trade',
      termsInput(created.currencyId, { endUser: { bps: 100 }, affiliate: { bps: 1_000 }, holdDays, requireApproval }),
    );
    return created;
  }

  const movements = (projectId: string) => movementStatesOf(harness, projectId);
  const checks = (projectId: string) =>
    rows<{ identifier: string; reason: string; amount: string; movements_count: number; full: boolean }>(
      `SELECT identifier, reason, amount::text, movements_count, full_at IS NOT NULL AS full FROM claim.claim_checks
       WHERE project_id = $1 ORDER BY identifier, reason, created_at, full_at NULLS LAST`,
      [projectId],
    );
  const leaderboard = (projectId: string) =>
    rows<{ user_type: string; identifier: string; total: string; attributions: number }>(
      `SELECT user_type, identifier, total_amount::text AS total, total_attributions::int AS attributions FROM claim.leaderboard_totals
       WHERE project_id = $1 ORDER BY user_type, identifier`,
      [projectId],
    );
  /** Every check holds exactly its movements (no credits in these tests), and only available movements are in checks. */
  async function expectChecksHoldTheirMovements(projectId: string) {
    expect(await checksOffTheirMovements(harness, projectId)).toEqual([]);
    expect(
      await rows(`SELECT id FROM claim.movements WHERE project_id = $1 AND (status = 'available') <> (claim_check_id IS NOT NULL)`, [projectId]),
    ).toEqual([]);
  }

  it('pays terms without hold or approval as before: available at once, in the open check, on the leaderboard', async () => {
    const { projectId } = await project(0, false);
    const input = conversion({ rewardBase: '10000' });
    expect(await pay(harness, projectId, [input])).toEqual({ recorded: 1, movements: 1 });
    expect(await movements(projectId)).toEqual([
      expect.objectContaining({ status: 'available', pending_reason: null, available_at: harness.clock.now(), in_check: true, amount: '100' }),
    ]);
    expect(await checks(projectId)).toEqual([
      { identifier: input.user!.identifier, reason: 'end_user', amount: '100', movements_count: 1, full: false },
    ]);
    expect(await leaderboard(projectId)).toEqual([{ user_type: 'end_user', identifier: input.user!.identifier, total: '100', attributions: 1 }]);
    const page = { page: 1, offset: 0, pageSize: 10 };
    const [listed] = (await harness.domain.ledger.movementsOf(projectId, input.user!, undefined, page)).records;
    expect(listed).toMatchObject({ status: 'available', pendingReason: null, claimCheckStatus: 'open', availableAt: harness.clock.now() });
    // A status filter lists only the movements in it (and counts only them).
    expect(await harness.domain.ledger.movementsOf(projectId, input.user!, 'available', page)).toMatchObject({ total: 1, records: [listed] });
    expect(await harness.domain.ledger.movementsOf(projectId, input.user!, 'pending', page)).toEqual({ total: 0, records: [] });
    expect((await harness.domain.claimChecks.totals(projectId, input.user!)).pending).toEqual([]);
  });

  it('holds movements for hold_days, in no check and on no board, and releases them exactly when the clock passes available_at', async () => {
    const { projectId } = await project(3, false);
    const affiliate = newAffiliate(harness, projectId);
    const user = newUser();
    refer(harness, projectId, user, affiliate.code);
    const input = conversion({ user, rewardBase: '10000' });
    const paidAt = harness.clock.now();
    await pay(harness, projectId, [input]);
    const availableAt = new Date(paidAt.getTime() + 3 * DAY);
    expect(await movements(projectId)).toEqual([
      expect.objectContaining({
        kind: 'affiliate_payout',
        amount: '1000',
        status: 'pending',
        pending_reason: 'hold',
        available_at: availableAt,
        in_check: false,
      }),
      expect.objectContaining({
        kind: 'end_user_payout',
        amount: '100',
        status: 'pending',
        pending_reason: 'hold',
        available_at: availableAt,
        in_check: false,
      }),
    ]);
    expect(await checks(projectId)).toEqual([]);
    expect(await leaderboard(projectId)).toEqual([]);
    const totals = await harness.domain.claimChecks.totals(projectId, user);
    expect(totals).toMatchObject({ claimed: [], unclaimed: [], pending: [expect.objectContaining({ amount: 100n })] });
    // The agency's figures are earned at processing: the event is out now, held or not.
    expect(
      await rows(`SELECT 1 FROM claim.outbox WHERE type = 'claim.conversion.processed' AND payload->>'conversion_id' = $1`, [input.id]),
    ).toHaveLength(1);

    harness.clock.set(new Date(availableAt.getTime() - 1));
    await harness.domain.decisions.releaseDue(1_000);
    expect((await movements(projectId)).map((row) => row.status)).toEqual(['pending', 'pending']);

    harness.clock.set(availableAt);
    await harness.domain.decisions.releaseDue(1_000);
    expect(await movements(projectId)).toEqual([
      expect.objectContaining({ kind: 'affiliate_payout', status: 'available', pending_reason: null, in_check: true, available_at: availableAt }),
      expect.objectContaining({ kind: 'end_user_payout', status: 'available', pending_reason: null, in_check: true, available_at: availableAt }),
    ]);
    expect(await checks(projectId)).toEqual(
      expect.arrayContaining([
        { identifier: affiliate.user.identifier, reason: 'affiliate', amount: '1000', movements_count: 1, full: false },
        { identifier: user.identifier, reason: 'end_user', amount: '100', movements_count: 1, full: false },
      ]),
    );
    expect(await leaderboard(projectId)).toEqual([
      { user_type: 'affiliate', identifier: affiliate.user.identifier, total: '1000', attributions: 1 },
      { user_type: 'end_user', identifier: user.identifier, total: '100', attributions: 1 },
    ]);
    expect(await harness.domain.claimChecks.totals(projectId, user)).toMatchObject({
      pending: [],
      unclaimed: [expect.objectContaining({ amount: 100n })],
    });
    // Released once: a later run finds nothing of this project.
    await harness.domain.decisions.releaseDue(1_000);
    expect((await checks(projectId)).map((check) => check.amount)).toEqual(expect.arrayContaining(['1000', '100']));
    await expectChecksHoldTheirMovements(projectId);
  });

  it('waits for approval whatever the time, then pays at once when approved after the hold', async () => {
    const { projectId } = await project(1, true);
    const input = conversion({ rewardBase: '50000' });
    await pay(harness, projectId, [input]);
    expect(await movements(projectId)).toEqual([expect.objectContaining({ status: 'pending', pending_reason: 'approval', in_check: false })]);
    harness.clock.advance(10 * DAY);
    await harness.domain.decisions.releaseDue(1_000);
    expect(await movements(projectId)).toEqual([expect.objectContaining({ status: 'pending', pending_reason: 'approval' })]);

    const [result] = await harness.domain.decisions.approve(projectId, [input.id], undefined, KEY);
    expect(result).toMatchObject({
      conversionId: input.id,
      outcome: 'approved',
      movements: [expect.objectContaining({ status: 'available', claimCheckStatus: 'open' })],
    });
    expect(result!.movements[0]!.decision).toEqual({ at: harness.clock.now(), by: KEY, declineReason: null });
    expect(await checks(projectId)).toEqual([
      { identifier: input.user!.identifier, reason: 'end_user', amount: '500', movements_count: 1, full: false },
    ]);
    expect(await leaderboard(projectId)).toEqual([{ user_type: 'end_user', identifier: input.user!.identifier, total: '500', attributions: 1 }]);

    // Idempotent: approving again, or declining after, changes nothing.
    expect((await harness.domain.decisions.approve(projectId, [input.id], undefined, 'key-other')).map((r) => r.outcome)).toEqual([
      'already_approved',
    ]);
    expect((await harness.domain.decisions.decline(projectId, [input.id], 'late', 'key-other')).map((r) => r.outcome)).toEqual(['already_approved']);
    expect(await movements(projectId)).toEqual([expect.objectContaining({ status: 'available', decided_by: KEY, decline_reason: null })]);
    expect(await checks(projectId)).toEqual([expect.objectContaining({ amount: '500', movements_count: 1 })]);
    await expectChecksHoldTheirMovements(projectId);
  });

  it('an approval before the hold ends makes the movements wait for the rest of it, then the release pays them', async () => {
    const { projectId } = await project(2, true);
    const input = conversion({ rewardBase: '20000' });
    const paidAt = harness.clock.now();
    await pay(harness, projectId, [input]);
    harness.clock.advance(DAY);
    expect((await harness.domain.decisions.approve(projectId, [input.id], undefined, KEY)).map((r) => r.outcome)).toEqual(['approved']);
    expect(await movements(projectId)).toEqual([
      expect.objectContaining({ status: 'pending', pending_reason: 'hold', in_check: false, decided_by: KEY }),
    ]);
    expect(await checks(projectId)).toEqual([]);
    expect((await harness.domain.decisions.approve(projectId, [input.id], undefined, KEY)).map((r) => r.outcome)).toEqual(['already_approved']);

    harness.clock.set(new Date(paidAt.getTime() + 2 * DAY));
    await harness.domain.decisions.releaseDue(1_000);
    expect(await movements(projectId)).toEqual([
      expect.objectContaining({ status: 'available', pending_reason: null, in_check: true, decided_by: KEY }),
    ]);
    expect(await checks(projectId)).toEqual([expect.objectContaining({ amount: '200', movements_count: 1 })]);
  });

  it('declines: never paid, in no check, on no board, the reason kept; deciding again changes nothing', async () => {
    const { projectId } = await project(0, true);
    const affiliate = newAffiliate(harness, projectId);
    const user = newUser();
    refer(harness, projectId, user, affiliate.code);
    const input = conversion({ user, rewardBase: '10000' });
    await pay(harness, projectId, [input]);
    const [declined] = await harness.domain.decisions.decline(projectId, [input.id], 'refunded order', KEY);
    expect(declined!.outcome).toBe('declined');
    expect(declined!.movements.map((movement) => [movement.status, movement.claimCheckStatus, movement.decision?.declineReason])).toEqual([
      ['declined', null, 'refunded order'],
      ['declined', null, 'refunded order'],
    ]);
    expect(await checks(projectId)).toEqual([]);
    expect(await leaderboard(projectId)).toEqual([]);
    expect((await harness.domain.claimChecks.totals(projectId, user)).pending).toEqual([]);
    expect((await harness.domain.decisions.decline(projectId, [input.id], 'again', 'key-other')).map((r) => r.outcome)).toEqual(['already_declined']);
    expect((await harness.domain.decisions.approve(projectId, [input.id], undefined, 'key-other')).map((r) => r.outcome)).toEqual([
      'already_declined',
    ]);
    harness.clock.advance(DAY);
    await harness.domain.decisions.releaseDue(1_000);
    expect((await movements(projectId)).map((row) => [row.status, row.decline_reason, row.decided_by])).toEqual([
      ['declined', 'refunded order', KEY],
      ['declined', 'refunded order', KEY],
    ]);
  });

  it('reports each conversion: not_found, not_pending (no approval needed, no movements), a repeated id once, in the order sent', async () => {
    const waiting = await project(0, true);
    const plain = await project(0, false);
    const a = conversion({ rewardBase: '10000' });
    const b = conversion({ rewardBase: '10000' });
    const nothing = conversion({ rewardBase: '0' });
    await pay(harness, waiting.projectId, [a, b, nothing]);
    const elsewhere = conversion({ rewardBase: '10000' });
    await pay(harness, plain.projectId, [elsewhere]);
    const results = await harness.domain.decisions.approve(waiting.projectId, [b.id, 'nope', nothing.id, b.id, elsewhere.id], undefined, KEY);
    expect(results.map((r) => [r.conversionId, r.outcome, r.movements.length])).toEqual([
      [b.id, 'approved', 1],
      ['nope', 'not_found', 0],
      [nothing.id, 'not_pending', 0],
      [elsewhere.id, 'not_found', 0],
    ]);
    expect((await harness.domain.decisions.approve(plain.projectId, [elsewhere.id], undefined, KEY)).map((r) => r.outcome)).toEqual(['not_pending']);
    // a was not named: it still waits.
    expect((await movements(waiting.projectId)).find((row) => row.conversion_id === a.id)).toMatchObject({
      status: 'pending',
      pending_reason: 'approval',
    });
  });

  it('refuses a decision without ids, with more than 1,000, or with a reason past 500 characters', async () => {
    const { projectId } = await project(0, true);
    await expect(harness.domain.decisions.approve(projectId, [], undefined, KEY)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    const many = Array.from({ length: 1_001 }, (_, index) => `c-${index}`);
    await expect(harness.domain.decisions.decline(projectId, many, undefined, KEY)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(harness.domain.decisions.decline(projectId, ['c-1'], 'x'.repeat(501), KEY)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'reason', reason: expect.any(String) }],
    });
  });

  it('refuses hold_days outside 0..365', async () => {
    const { projectId, currencyId } = await newProject(harness);
    for (const holdDays of [-1, 366, 1.5]) {
      await expect(harness.domain.terms.put(projectId, 'trade', termsInput(currencyId, { endUser: { bps: 1 }, holdDays }))).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field: 'hold_days', reason: expect.any(String) }],
      });
    }
    const { record } = await harness.domain.terms.put(
      projectId,
      'trade',
      termsInput(currencyId, { endUser: { bps: 1 }, holdDays: 365, requireApproval: true }),
    );
    expect(record).toMatchObject({ holdDays: 365, requireApproval: true });
  });

  it('releases into a new check when the open one would pass 2^256 - 1 (the payment’s overflow rule)', async () => {
    const { projectId, currencyId } = await newProject(harness);
    await harness.domain.terms.put(projectId, 'big', termsInput(currencyId, { endUser: { fixed: (MAX_AMOUNT - 5n).toString() } }));
    await harness.domain.terms.put(projectId, 'held', termsInput(currencyId, { endUser: { fixed: '10' }, holdDays: 1 }));
    const user = newUser();
    const held = conversion({ user, name: 'held' });
    await pay(harness, projectId, [held]);
    await pay(harness, projectId, [conversion({ user, name: 'big' })]);
    harness.clock.advance(DAY);
    await harness.domain.decisions.releaseDue(1_000);
    expect(await checks(projectId)).toEqual([
      { identifier: user.identifier, reason: 'end_user', amount: (MAX_AMOUNT - 5n).toString(), movements_count: 1, full: true },
      { identifier: user.identifier, reason: 'end_user', amount: '10', movements_count: 1, full: false },
    ]);
    expect(await leaderboard(projectId)).toEqual([
      { user_type: 'end_user', identifier: user.identifier, total: (MAX_AMOUNT + 5n).toString(), attributions: 2 },
    ]);
    await expectChecksHoldTheirMovements(projectId);
  });

  it('releases each due movement once under concurrent runs of two processes, in bounded batches', async () => {
    const { projectId } = await project(1, false);
    const users = Array.from({ length: 5 }, newUser);
    const inputs = Array.from({ length: 60 }, (_, index) =>
      conversion({ user: users[index % users.length]!, rewardBase: String(100 * (index + 1)) }),
    );
    await pay(harness, projectId, inputs);
    harness.clock.advance(DAY);
    const other = harness.anotherProcess();
    await Promise.all([
      harness.domain.decisions.releaseDue(7),
      other.decisions.releaseDue(7),
      harness.domain.decisions.releaseDue(7),
      other.decisions.releaseDue(1_000),
    ]);
    expect((await movements(projectId)).filter((row) => row.status !== 'available')).toEqual([]);
    const expected = new Map<string, bigint>();
    inputs.forEach((input) => expected.set(input.user!.identifier, (expected.get(input.user!.identifier) ?? 0n) + BigInt(input.rewardBase!) / 100n));
    const open = await checks(projectId);
    expect(new Map(open.map((check) => [check.identifier, BigInt(check.amount)]))).toEqual(expected);
    expect(open.reduce((sum, check) => sum + check.movements_count, 0)).toBe(60);
    expect((await leaderboard(projectId)).reduce((sum, row) => sum + row.attributions, 0)).toBe(60);
    await expectChecksHoldTheirMovements(projectId);
  });

  it('concurrent approvals of the same conversions approve each once', async () => {
    const { projectId } = await project(0, true);
    const inputs = Array.from({ length: 10 }, () => conversion({ rewardBase: '10000' }));
    await pay(harness, projectId, inputs);
    const ids = inputs.map((input) => input.id);
    const other = harness.anotherProcess();
    const answers = await Promise.all([
      harness.domain.decisions.approve(projectId, ids, undefined, KEY),
      other.decisions.approve(projectId, [...ids].reverse(), undefined, KEY),
      harness.domain.decisions.approve(projectId, ids, undefined, KEY),
    ]);
    for (const id of ids) {
      const outcomes = answers.map((answer) => answer.find((result) => result.conversionId === id)!.outcome).sort();
      expect(outcomes).toEqual(['already_approved', 'already_approved', 'approved']);
    }
    expect((await checks(projectId)).map((check) => [check.amount, check.movements_count])).toEqual(ids.map(() => ['100', 1]));
    await expectChecksHoldTheirMovements(projectId);
  });

  describe('the ledger’s trigger', () => {
    async function oneOf(holdDays: number, requireApproval: boolean) {
      const { projectId } = await project(holdDays, requireApproval);
      await pay(harness, projectId, [conversion({ rewardBase: '10000' })]);
      const [row] = await rows<{ id: string; claim_check_id: string | null }>(
        'SELECT id::text, claim_check_id FROM claim.movements WHERE project_id = $1',
        [projectId],
      );
      return { projectId, id: row!.id, checkId: row!.claim_check_id };
    }
    const refused = (text: string, values: unknown[]) =>
      expect(harness.sql.query(text, values)).rejects.toMatchObject({ code: '23001', message: expect.stringContaining('append-only') });

    it('refuses any change of amount, kind, beneficiary, currency, conversion or times, pending or available', async () => {
      for (const { id } of [await oneOf(1, false), await oneOf(0, false)]) {
        await refused('UPDATE claim.movements SET amount = amount + 1 WHERE id = $1', [id]);
        await refused("UPDATE claim.movements SET kind = 'agency_payout' WHERE id = $1", [id]);
        await refused("UPDATE claim.movements SET identifier = '0x0000000000000000000000000000000000000001' WHERE id = $1", [id]);
        await refused('UPDATE claim.movements SET currency_id = gen_random_uuid() WHERE id = $1', [id]);
        await refused("UPDATE claim.movements SET conversion_id = 'other' WHERE id = $1", [id]);
        await refused("UPDATE claim.movements SET created_at = created_at - interval '1 day' WHERE id = $1", [id]);
        await refused("UPDATE claim.movements SET available_at = available_at - interval '1 day' WHERE id = $1", [id]);
        await refused('DELETE FROM claim.movements WHERE id = $1', [id]);
      }
    });

    it('refuses a status moving backwards or sideways, a check changed once set, a decision rewritten', async () => {
      const available = await oneOf(0, false);
      await refused("UPDATE claim.movements SET status = 'pending', pending_reason = 'hold', claim_check_id = NULL WHERE id = $1", [available.id]);
      await refused("UPDATE claim.movements SET status = 'declined', claim_check_id = NULL WHERE id = $1", [available.id]);
      await refused('UPDATE claim.movements SET claim_check_id = gen_random_uuid() WHERE id = $1', [available.id]);
      const held = await oneOf(1, false);
      // A hold is not a decision's to change: only approval or review move to hold.
      await refused("UPDATE claim.movements SET pending_reason = 'approval' WHERE id = $1", [held.id]);
      const waiting = await oneOf(0, true);
      await harness.domain.decisions.decline(
        waiting.projectId,
        [(await rows<{ conversion_id: string }>('SELECT conversion_id FROM claim.movements WHERE id = $1', [waiting.id]))[0]!.conversion_id],
        'no',
        KEY,
      );
      await refused("UPDATE claim.movements SET status = 'pending', pending_reason = 'approval' WHERE id = $1", [waiting.id]);
      await refused("UPDATE claim.movements SET decline_reason = 'other' WHERE id = $1", [waiting.id]);
      await refused('UPDATE claim.movements SET decided_at = now() WHERE id = $1', [waiting.id]);
      await refused("UPDATE claim.movements SET decided_by = 'someone' WHERE id = $1", [waiting.id]);
    });

    it('lets a pending movement move forward: approval to hold, pending to declined', async () => {
      const waiting = await oneOf(3, true);
      await harness.sql.query("UPDATE claim.movements SET pending_reason = 'hold', decided_at = now(), decided_by = 'k' WHERE id = $1", [waiting.id]);
      const held = await oneOf(3, false);
      await harness.sql.query("UPDATE claim.movements SET status = 'declined', pending_reason = NULL WHERE id = $1", [held.id]);
      // An available movement must be in a check (a constraint beside the trigger).
      const other = await oneOf(3, false);
      await expect(
        harness.sql.query("UPDATE claim.movements SET status = 'available', pending_reason = NULL WHERE id = $1", [other.id]),
      ).rejects.toMatchObject({ code: '23514', constraint: 'movements_check_status_check' });
    });
  });
});
