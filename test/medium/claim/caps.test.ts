import type { PayoutCapsInput, PayoutTermsInput } from '../../../services/claim/domain/payout-terms.service';
import { MAX_AMOUNT } from '../../../services/rules/money';
import { startClaimDomain } from '../../helpers/claim-domain';
import { rowsOf, useDomainHarness } from '../../helpers/domain';
import { batchOf, checksOffTheirMovements, conversion, newAffiliate, newProject, newUser, pay, refer, termsInput } from './fixtures';

const DAY = 86_400_000;
const KEY = 'key-admin-caps';

/**
 * Payout caps (docs/claims.md#caps): the terms' per-conversion, per-end-user and per-affiliate-window
 * caps cut movements in the payment's transaction; the cut is recorded on the movement (capped_amount,
 * capped_by: the first cap that cut) and never paid; a movement cut to nothing is written all the same;
 * the running totals are cumulative within a batch and across batches, count pending and available
 * movements but not declined ones, and hold when batches of the same user are paid at once.
 */
describe('payout caps (domain)', () => {
  const harness = useDomainHarness(() => startClaimDomain());

  const rows = rowsOf(harness);

  async function project(caps: PayoutCapsInput, fields: Partial<PayoutTermsInput> = {}, name = 'trade') {
    const created = await newProject(harness);
    await harness.domain.terms.put(created.projectId, name, termsInput(created.currencyId, { caps, ...fields }));
    return created;
  }

  /** Conversion ids that sort in the order given (a batch is capped in conversion-id order). */
  const ordered = (count: number, fields: Parameters<typeof conversion>[0] = {}) => {
    const prefix = conversion().id;
    return Array.from({ length: count }, (_, index) => conversion({ ...fields, id: `${prefix}-${index}` }));
  };

  const movements = (projectId: string) =>
    rows<{
      conversion_id: string;
      kind: string;
      identifier: string;
      amount: string;
      capped_amount: string;
      capped_by: string | null;
      status: string;
    }>(
      `SELECT conversion_id, kind, identifier, amount::text, capped_amount::text, capped_by, status
       FROM claim.movements WHERE project_id = $1 ORDER BY conversion_id, kind`,
      [projectId],
    );
  const cut = (amount: string, capped: string, by: string | null) => expect.objectContaining({ amount, capped_amount: capped, capped_by: by });

  /** Every open check holds exactly its movements' amounts (the capped parts are in none). */
  async function expectChecksHoldTheirMovements(projectId: string) {
    expect(await checksOffTheirMovements(harness, projectId)).toEqual([]);
  }

  it('cuts each movement of a conversion to the per-conversion cap: the end user’s, the affiliate’s and the master’s spread', async () => {
    const { projectId } = await project({ perConversion: '600' }, { endUser: { fixed: '500' }, affiliate: { fixed: '800' } });
    const affiliate = newAffiliate(harness, projectId);
    const master = newAffiliate(harness, projectId);
    harness.agency.setMaster(projectId, affiliate.user, { user: master.user, spreadBps: 1_000 });
    const user = newUser();
    refer(harness, projectId, user, affiliate.code);
    const input = conversion({ user, rewardBase: '10000' });
    expect(await pay(harness, projectId, [input])).toEqual({ recorded: 1, movements: 3 });
    expect(await movements(projectId)).toEqual([cut('600', '200', 'per_conversion'), cut('600', '400', 'per_conversion'), cut('500', '0', null)]);
    await expectChecksHoldTheirMovements(projectId);
    // The conversion and the user's movement list say what was cut.
    const { movements: listed } = await harness.domain.ledger.conversion(projectId, input.id);
    expect(listed.map((movement) => [movement.kind, movement.amount, movement.capped])).toEqual([
      ['affiliate_payout', 600n, { amount: 200n, by: 'per_conversion' }],
      ['agency_payout', 600n, { amount: 400n, by: 'per_conversion' }],
      ['end_user_payout', 500n, null],
    ]);
    // The event carries what was paid.
    const [event] = await rows<{ payouts: Array<{ kind: string; amount: string }> }>(
      `SELECT payload->'payouts' AS payouts FROM claim.outbox WHERE type = 'claim.conversion.processed' AND payload->>'conversion_id' = $1`,
      [input.id],
    );
    expect(event!.payouts.map((payout) => payout.amount).sort()).toEqual(['500', '600', '600']);
  });

  it('holds an end user to its lifetime cap under the terms, cumulatively within a batch and across batches, down to 0', async () => {
    const { projectId, currencyId } = await project({ perEndUser: '1000' }, { endUser: { fixed: '400' } });
    await harness.domain.terms.put(projectId, 'swap', termsInput(currencyId, { endUser: { fixed: '400' } }));
    const user = newUser();
    const other = newUser();
    const batch = ordered(3, { user });
    expect(await pay(harness, projectId, [...batch, conversion({ user: other })])).toMatchObject({ recorded: 4, movements: 4 });
    const byId = async () => new Map((await movements(projectId)).map((row) => [row.conversion_id, row]));
    let paid = await byId();
    expect(batch.map((input) => paid.get(input.id))).toEqual([cut('400', '0', null), cut('400', '0', null), cut('200', '200', 'per_end_user')]);

    // A later batch finds the cap spent: the movement is still written, amount 0, all of it capped.
    const later = conversion({ user });
    const elsewhere = conversion({ user, name: 'swap' });
    expect(await pay(harness, projectId, [later, elsewhere])).toMatchObject({ recorded: 2, movements: 2 });
    paid = await byId();
    expect(paid.get(later.id)).toEqual(cut('0', '400', 'per_end_user'));
    // Other terms keep their own totals; another user has its own.
    expect(paid.get(elsewhere.id)).toEqual(cut('400', '0', null));
    expect([...paid.values()].filter((row) => row.identifier === other.identifier)).toEqual([cut('400', '0', null)]);
    await expectChecksHoldTheirMovements(projectId);
    const [check] = await rows<{ amount: string; movements_count: number }>(
      `SELECT amount::text, movements_count FROM claim.claim_checks WHERE project_id = $1 AND identifier = $2`,
      [projectId, user.identifier],
    );
    expect(check).toEqual({ amount: '1400', movements_count: 5 });
    // What the user sees: its totals hold what was paid, never the capped part.
    expect((await harness.domain.claimChecks.totals(projectId, user)).unclaimed).toEqual([expect.objectContaining({ amount: 1_400n })]);
    // The leaderboard's total is what was paid.
    const [board] = await rows<{ total: string }>(
      `SELECT total_amount::text AS total FROM claim.leaderboard_totals WHERE project_id = $1 AND identifier = $2`,
      [projectId, user.identifier],
    );
    expect(board).toEqual({ total: '1400' });
  });

  it('gives a reversal’s amount back to the lifetime cap: a refunded conversion no longer counts toward it', async () => {
    const { projectId } = await project({ perEndUser: '1000' }, { endUser: { fixed: '400' } });
    const user = newUser();
    const first = ordered(3, { user });
    await pay(harness, projectId, first);
    // 400 + 400 + 200 (capped): the cap is spent. Half of the first is refunded: 200 of room comes back.
    await harness.domain.reversals.reverse(projectId, {
      conversionId: first[0]!.id,
      reversalId: `refund-${first[0]!.id}`,
      reason: 'refunded',
      shareBps: 5_000,
      reversedBy: 'key-service-caps',
    });
    const later = conversion({ user });
    await pay(harness, projectId, [later]);
    const paid = new Map((await movements(projectId)).map((row) => [row.conversion_id, row]));
    expect(paid.get(later.id)).toEqual(cut('200', '200', 'per_end_user'));
    expect((await harness.domain.reconciliation.get(projectId, undefined)).balanced).toBe(true);
  });

  it('holds an affiliate to its cap over a rolling window: a movement counts for `days` days after it is written', async () => {
    const { projectId } = await project({ perAffiliateWindow: { amount: '500', days: 7 } }, { affiliate: { fixed: '300' }, endUser: { fixed: '1' } });
    const affiliate = newAffiliate(harness, projectId);
    const users = [newUser(), newUser(), newUser(), newUser()];
    for (const user of users) refer(harness, projectId, user, affiliate.code);
    const start = harness.clock.now();
    const affiliateCut = async (input: ReturnType<typeof conversion>) => {
      await pay(harness, projectId, [input]);
      return (await movements(projectId)).find((row) => row.conversion_id === input.id && row.kind === 'affiliate_payout');
    };
    expect(await affiliateCut(conversion({ user: users[0] }))).toEqual(cut('300', '0', null));
    harness.clock.set(new Date(start.getTime() + DAY));
    expect(await affiliateCut(conversion({ user: users[1] }))).toEqual(cut('200', '100', 'per_affiliate_window'));
    // A moment before the first leaves the window: nothing left.
    harness.clock.set(new Date(start.getTime() + 7 * DAY - 1));
    expect(await affiliateCut(conversion({ user: users[2] }))).toEqual(cut('0', '300', 'per_affiliate_window'));
    // The first left the window (7 days after it was written): 500 − 200 − 0 = 300 of room.
    harness.clock.set(new Date(start.getTime() + 7 * DAY));
    expect(await affiliateCut(conversion({ user: users[3] }))).toEqual(cut('300', '0', null));
    // The end users are no affiliates: their movements are not held to the window.
    expect((await movements(projectId)).filter((row) => row.kind === 'end_user_payout').every((row) => row.capped_by === null)).toBe(true);
  });

  it('counts pending movements toward a total and declined ones not, and records the cut on held movements too', async () => {
    const { projectId } = await project({ perEndUser: '1000' }, { endUser: { fixed: '600' }, requireApproval: true });
    const user = newUser();
    const [first, second] = ordered(2, { user });
    await pay(harness, projectId, [first!, second!]);
    expect(await movements(projectId)).toEqual([
      expect.objectContaining({ ...cutFields('600', '0', null), status: 'pending' }),
      expect.objectContaining({ ...cutFields('400', '200', 'per_end_user'), status: 'pending' }),
    ]);
    // Declined: the 600 no longer counts, so 1000 − 400 = 600 of room.
    await harness.domain.decisions.decline(projectId, [first!.id], 'not a real order', KEY);
    const third = conversion({ user });
    await pay(harness, projectId, [third]);
    expect((await movements(projectId)).find((row) => row.conversion_id === third.id)).toEqual(cut('600', '0', null));
    // An approved capped movement stays as it was cut: the trigger refuses any change of its capped part.
    await harness.domain.decisions.approve(projectId, [second!.id], undefined, KEY);
    expect((await movements(projectId)).find((row) => row.conversion_id === second!.id)).toEqual(
      expect.objectContaining({ ...cutFields('400', '200', 'per_end_user'), status: 'available' }),
    );
    await expect(
      harness.sql.query(`UPDATE claim.movements SET capped_amount = 0, capped_by = NULL WHERE project_id = $1 AND conversion_id = $2`, [
        projectId,
        second!.id,
      ]),
    ).rejects.toThrow(/append-only/);
    // 400 + 600 spent: a fourth waits cut to nothing, and once approved is available in the open check, which grows by 0.
    const fourth = conversion({ user });
    await pay(harness, projectId, [fourth]);
    expect((await movements(projectId)).find((row) => row.conversion_id === fourth.id)).toEqual(
      expect.objectContaining({ ...cutFields('0', '600', 'per_end_user'), status: 'pending' }),
    );
    expect((await harness.domain.decisions.approve(projectId, [fourth.id], undefined, KEY)).map((result) => result.outcome)).toEqual(['approved']);
    expect((await movements(projectId)).find((row) => row.conversion_id === fourth.id)).toEqual(
      expect.objectContaining({ ...cutFields('0', '600', 'per_end_user'), status: 'available' }),
    );
    await expectChecksHoldTheirMovements(projectId);
  });

  it('never lets batches of the same end user paid at once in several processes pass the cap together', async () => {
    const { projectId } = await project({ perEndUser: '1000' }, { endUser: { fixed: '300' } });
    const user = newUser();
    const inputs = Array.from({ length: 12 }, () => conversion({ user }));
    // Twelve batches of one conversion each.
    for (const input of inputs) await harness.domain.conversions.submitMany(projectId, [input]);
    const batches = await Promise.all(inputs.map((input) => batchOf(harness, projectId, input.id)));
    expect(new Set(batches).size).toBe(12);
    const processes = Array.from({ length: 4 }, () => harness.anotherProcess());
    await Promise.all(batches.map((batchId, index) => processes[index % processes.length]!.payouts.payBatch(batchId)));
    const paid = await movements(projectId);
    expect(paid).toHaveLength(12);
    expect(paid.reduce((sum, row) => sum + BigInt(row.amount), 0n)).toBe(1_000n);
    expect(paid.reduce((sum, row) => sum + BigInt(row.capped_amount), 0n)).toBe(12n * 300n - 1_000n);
    // Three paid whole, one cut to 100, the rest cut to nothing.
    expect(paid.map((row) => row.amount).sort()).toEqual(['0', '0', '0', '0', '0', '0', '0', '0', '100', '300', '300', '300']);
    await expectChecksHoldTheirMovements(projectId);
  });

  it('has the tables refuse a movement of nothing that no cap cut, a cut without its cap, and a window without its days', async () => {
    const { projectId } = await project({ perConversion: '10' }, { endUser: { fixed: '50' } });
    await pay(harness, projectId, [conversion()]);
    const copy = (amount: string, capped: string, by: string | null) =>
      harness.sql.query(
        `INSERT INTO claim.movements (project_id, conversion_id, kind, identifier_type, identifier, currency_id, amount, claim_check_id, available_at, created_at, capped_amount, capped_by)
         SELECT project_id, conversion_id, kind, identifier_type, 'copy-' || identifier, currency_id, $2, claim_check_id, available_at, created_at, $3, $4
         FROM claim.movements WHERE project_id = $1`,
        [projectId, amount, capped, by],
      );
    await expect(copy('0', '0', null)).rejects.toThrow(/movements_amount_check/);
    await expect(copy('-1', '5', 'per_conversion')).rejects.toThrow(/movements_amount_check/);
    await expect(copy('5', '5', null)).rejects.toThrow(/movements_capped_check/);
    await expect(copy('5', '0', 'per_conversion')).rejects.toThrow(/movements_capped_check/);
    await expect(copy('5', '5', 'per_lifetime')).rejects.toThrow(/movements_capped_by_check/);
    await expect(harness.sql.query(`UPDATE claim.payout_terms SET cap_window_amount = 5 WHERE project_id = $1`, [projectId])).rejects.toThrow(
      /payout_terms_cap_window_check/,
    );
    expect(await rows(`SELECT count(*)::int AS n FROM claim.movements WHERE project_id = $1`, [projectId])).toEqual([{ n: 1 }]);
  });

  it('refuses caps that are not positive amounts, and windows outside 1..365 days, naming the field', async () => {
    const { projectId, currencyId } = await newProject(harness);
    const put = (caps: PayoutCapsInput) => harness.domain.terms.put(projectId, 'trade', termsInput(currencyId, { endUser: { bps: 1 }, caps }));
    const refused = (field: string, code = 'VALIDATION_FAILED') =>
      expect.objectContaining({ code, details: [{ field, reason: expect.any(String) }] });
    await expect(put({ perConversion: '0' })).rejects.toEqual(refused('caps.per_conversion'));
    await expect(put({ perEndUser: '-5' })).rejects.toEqual(refused('caps.per_end_user'));
    await expect(put({ perEndUser: '1.5' })).rejects.toEqual(refused('caps.per_end_user'));
    await expect(put({ perConversion: (MAX_AMOUNT + 1n).toString() })).rejects.toEqual(refused('caps.per_conversion', 'AMOUNT_OUT_OF_RANGE'));
    for (const days of [0, 366, 1.5]) {
      await expect(put({ perAffiliateWindow: { amount: '10', days } })).rejects.toEqual(refused('caps.per_affiliate_window.days'));
    }
    await expect(put({ perAffiliateWindow: { amount: '0', days: 30 } })).rejects.toEqual(refused('caps.per_affiliate_window.amount'));
    expect(await rows(`SELECT 1 FROM claim.payout_terms WHERE project_id = $1`, [projectId])).toEqual([]);

    const { record } = await put({ perConversion: MAX_AMOUNT.toString(), perEndUser: '1', perAffiliateWindow: { amount: '2', days: 365 } });
    expect(record.caps).toEqual({ perConversion: MAX_AMOUNT, perEndUser: 1n, perAffiliateWindow: { amount: 2n, days: 365 } });
    // Replaced whole: terms saved again without caps have none.
    expect((await put({})).record.caps).toEqual({ perConversion: null, perEndUser: null, perAffiliateWindow: null });
  });
});

function cutFields(amount: string, capped: string, by: string | null) {
  return { amount, capped_amount: capped, capped_by: by };
}
