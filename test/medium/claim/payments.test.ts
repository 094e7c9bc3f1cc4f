import { type ClaimHarness, startClaimDomain } from '../../helpers/claim-domain';
import { batchOf, checksOf, conversion, movementsOf, newAffiliate, newProject, newUser, refer, statusOf, termsInput } from './fixtures';

/**
 * Paying conversions (PayoutService.payBatch, the job's step), asking a fake of the agency service
 * (test/helpers/fakes/agency.ts) who referred whom: attribution at the conversion's moment, frozen on it; movements, open claim checks and
 * leaderboard totals written together; no terms recorded as such; a redelivery, or a thousand at
 * once, pays nothing twice; the ledger refuses changes.
 */
describe('paying conversions (domain)', () => {
  let harness: ClaimHarness;
  beforeAll(async () => {
    harness = await startClaimDomain();
  });
  afterAll(() => harness.stop());

  /** A project whose `trade` conversions pay the end user 1% and the affiliate 10% of reward_base. */
  async function projectWithTerms() {
    const project = await newProject(harness);
    await harness.domain.terms.put(project.projectId, 'trade', termsInput(project.currencyId, { endUser: { bps: 100 }, affiliate: { bps: 1_000 } }));
    return project;
  }

  async function submitAndPay(projectId: string, inputs: ReturnType<typeof conversion>[]) {
    await harness.domain.conversions.submitMany(projectId, inputs);
    return harness.domain.payouts.payBatch(await batchOf(harness, projectId, inputs[0]!.id));
  }

  const leaderboardOf = async (projectId: string) =>
    (
      await harness.sql.query(
        'SELECT user_type, identifier, total_amount::text, total_attributions::int FROM claim.leaderboard_totals WHERE project_id = $1 ORDER BY user_type, identifier',
        [projectId],
      )
    ).rows;

  it('pays the end user alone when nobody referred the user, and freezes no attribution', async () => {
    const { projectId, currencyId } = await projectWithTerms();
    const input = conversion({ rewardBase: '10000' });
    expect(await submitAndPay(projectId, [input])).toEqual({ recorded: 1, movements: 1 });
    const paid = await harness.domain.ledger.conversion(projectId, input.id);
    expect(paid).toMatchObject({ status: 'processed', processedAt: harness.clock.now(), attribution: null, failureReason: null });
    expect(paid.movements).toEqual([
      expect.objectContaining({
        kind: 'end_user_payout',
        beneficiary: input.user,
        amount: 100n,
        claimCheckStatus: 'open',
        currency: expect.objectContaining({ id: currencyId }),
      }),
    ]);
    expect(await checksOf(harness, projectId)).toEqual([
      { identifier: input.user!.identifier, reason: 'end_user', status: 'open', amount: '100', movements_count: 1 },
    ]);
    expect(await leaderboardOf(projectId)).toEqual([
      { user_type: 'end_user', identifier: input.user!.identifier, total_amount: '100', total_attributions: 1 },
    ]);
  });

  it('pays the referring affiliate too, and freezes who it was on the conversion', async () => {
    const { projectId } = await projectWithTerms();
    const affiliate = newAffiliate(harness, projectId);
    const user = newUser();
    refer(harness, projectId, user, affiliate.code);
    const input = conversion({ user, rewardBase: '123456' });
    await submitAndPay(projectId, [input]);
    const paid = await harness.domain.ledger.conversion(projectId, input.id);
    expect(paid.attribution).toEqual({
      affiliate: { id: expect.any(String), user: affiliate.user },
      master: null,
      upline: [],
      tierId: null,
      rebateBps: 0,
    });
    expect(await movementsOf(harness, projectId)).toEqual([
      { conversion_id: input.id, kind: 'affiliate_payout', identifier: affiliate.user.identifier, amount: '12345' },
      { conversion_id: input.id, kind: 'end_user_payout', identifier: user.identifier, amount: '1234' },
    ]);
    expect(await checksOf(harness, projectId)).toEqual(
      expect.arrayContaining([
        { identifier: affiliate.user.identifier, reason: 'affiliate', status: 'open', amount: '12345', movements_count: 1 },
        { identifier: user.identifier, reason: 'end_user', status: 'open', amount: '1234', movements_count: 1 },
      ]),
    );
  });

  it('attributes by the moment the conversion happened: a referral made later pays nothing for it', async () => {
    const { projectId } = await projectWithTerms();
    const affiliate = newAffiliate(harness, projectId);
    const user = newUser();
    const before = conversion({ user, occurredAt: new Date(harness.clock.now().getTime() - 60_000) });
    refer(harness, projectId, user, affiliate.code);
    const after = conversion({ user });
    await harness.domain.conversions.submitMany(projectId, [before, after]);
    await harness.payAll();
    expect((await harness.domain.ledger.conversion(projectId, before.id)).attribution).toBeNull();
    expect((await harness.domain.ledger.conversion(projectId, after.id)).attribution?.affiliate.user).toEqual(affiliate.user);
    expect((await movementsOf(harness, projectId)).filter((row) => row.kind === 'affiliate_payout').map((row) => row.conversion_id)).toEqual([
      after.id,
    ]);
  });

  it('pays no affiliate for a conversion that happened while its referrer was suspended', async () => {
    const { projectId } = await projectWithTerms();
    const affiliate = newAffiliate(harness, projectId);
    const user = newUser();
    refer(harness, projectId, user, affiliate.code);
    harness.clock.advance(1_000);
    harness.agency.suspend(projectId, affiliate.user);
    harness.clock.advance(1_000);
    const input = conversion({ user });
    await submitAndPay(projectId, [input]);
    expect(await statusOf(harness, projectId, input.id)).toBe('processed');
    expect((await movementsOf(harness, projectId)).map((row) => row.kind)).toEqual(['end_user_payout']);
  });

  it('attributes a user nobody referred yet to the affiliate of its referral_code, from the conversion on', async () => {
    const { projectId } = await projectWithTerms();
    const affiliate = newAffiliate(harness, projectId);
    const user = newUser();
    const input = conversion({ user, referralCode: affiliate.code.toUpperCase(), occurredAt: new Date(harness.clock.now().getTime() - 3_600_000) });
    await submitAndPay(projectId, [input]);
    expect((await harness.domain.ledger.conversion(projectId, input.id)).attribution?.affiliate.user).toEqual(affiliate.user);
    expect(harness.agency.referrerOf(projectId, user)?.user.identifier).toBe(affiliate.user.identifier);
    // The next conversion of the user, without a code, is the same affiliate's.
    const next = conversion({ user });
    await submitAndPay(projectId, [next]);
    expect((await harness.domain.ledger.conversion(projectId, next.id)).attribution?.affiliate.user).toEqual(affiliate.user);
  });

  it('keeps the first referrer when a conversion brings another affiliate’s code, and ignores an unknown code', async () => {
    const { projectId } = await projectWithTerms();
    const first = newAffiliate(harness, projectId);
    const second = newAffiliate(harness, projectId);
    const user = newUser();
    refer(harness, projectId, user, first.code);
    const withOther = conversion({ user, referralCode: second.code });
    const stranger = conversion({ referralCode: 'NOSUCHCODE' });
    await harness.domain.conversions.submitMany(projectId, [withOther, stranger]);
    await harness.payAll();
    expect((await harness.domain.ledger.conversion(projectId, withOther.id)).attribution?.affiliate.user).toEqual(first.user);
    expect(await harness.domain.ledger.conversion(projectId, stranger.id)).toMatchObject({ status: 'processed', attribution: null });
  });

  it('writes a claim.conversion.processed event with the attribution, volume, revenue, currency and payouts of each paid conversion', async () => {
    const { projectId, currencyId } = await projectWithTerms();
    const [currency] = await harness.sql.query('SELECT address FROM claim.currencies WHERE id = $1', [currencyId]).then((result) => result.rows);
    const affiliate = newAffiliate(harness, projectId);
    const user = newUser();
    refer(harness, projectId, user, affiliate.code);
    const paid = conversion({ user, volumeUsd: '1500.25', revenueUsd: '3' });
    const unpaid = conversion({ user, name: 'signup', volumeUsd: '10' });
    await submitAndPay(projectId, [paid, unpaid]);
    const { rows } = await harness.sql.query(
      "SELECT payload FROM claim.outbox WHERE project_id = $1 AND type = 'claim.conversion.processed' ORDER BY payload->>'name' DESC",
      [projectId],
    );
    const agencyId = (await harness.domain.ledger.conversion(projectId, paid.id)).attribution!.affiliate.id;
    const asUser = ({ identifier, identifierType }: { identifier: string; identifierType: string }) => ({
      identifier,
      identifier_type: identifierType,
    });
    expect(rows.map((row) => row.payload)).toEqual([
      {
        conversion_id: paid.id,
        name: 'trade',
        status: 'processed',
        occurred_at: harness.clock.now().toISOString(),
        user: asUser(user),
        affiliate: { id: agencyId, user: asUser(affiliate.user) },
        master: null,
        upline: [],
        tier_id: null,
        volume_usd: '1500.25',
        revenue_usd: '3',
        currency_id: currencyId,
        currency: { id: currencyId, chain_id: '8453', address: currency.address, name: 'USDC', decimals: 6, type: 'erc20' },
        payouts: [
          { kind: 'end_user_payout', user: asUser(user), amount: '100' },
          { kind: 'affiliate_payout', user: asUser(affiliate.user), amount: '1000', level: 1 },
        ],
      },
      expect.objectContaining({ conversion_id: unpaid.id, status: 'no_terms', volume_usd: '10', currency_id: null, currency: null, payouts: [] }),
    ]);
  });

  it('pays a tiered affiliate its tier’s reward and its master the spread, freezes both, and counts no agency_payout on a leaderboard', async () => {
    const { projectId, currencyId } = await newProject(harness);
    // The gold tier is an audience of the audience service; which affiliates it holds reaches attribution through the agency (tested in test/medium/agency/tier-projection.test.ts).
    const gold = harness.audiences.create(projectId);
    await harness.domain.terms.put(
      projectId,
      'trade',
      termsInput(currencyId, { affiliate: { bps: 1_000 }, tiers: [{ audienceId: gold.id, affiliate: { bps: 2_000 } }] }),
    );
    const [master, sub] = [newAffiliate(harness, projectId), newAffiliate(harness, projectId)];
    harness.agency.setMaster(projectId, sub.user, { user: master.user, spreadBps: 250 });
    harness.agency.setTier(projectId, sub.user, gold.id);
    const user = newUser();
    refer(harness, projectId, user, sub.code);
    harness.clock.advance(1_000);
    const first = conversion({ user, rewardBase: '9999' });
    await submitAndPay(projectId, [first]);
    expect((await harness.domain.ledger.conversion(projectId, first.id)).attribution).toEqual({
      affiliate: { id: expect.any(String), user: sub.user },
      master: { affiliate: { id: master.id, user: master.user }, spreadBps: 250 },
      upline: [],
      tierId: gold.id,
      rebateBps: 0,
    });
    // 20% of 9,999 floored for the gold tier; 2.5% of 9,999 floored for the master.
    expect((await movementsOf(harness, projectId)).map((row) => [row.kind, row.identifier, row.amount])).toEqual([
      ['affiliate_payout', sub.user.identifier, '1999'],
      ['agency_payout', master.user.identifier, '249'],
    ]);
    expect(await checksOf(harness, projectId)).toEqual(
      expect.arrayContaining([{ identifier: master.user.identifier, reason: 'agency', status: 'open', amount: '249', movements_count: 1 }]),
    );
    expect((await leaderboardOf(projectId)).map((row) => row.identifier)).toEqual([sub.user.identifier]);
    const [event] = (
      await harness.sql.query("SELECT payload FROM claim.outbox WHERE project_id = $1 AND payload->>'conversion_id' = $2", [projectId, first.id])
    ).rows;
    expect(event.payload).toMatchObject({ master: { id: master.id, spread_bps: 250 }, tier_id: gold.id });

    // The master lets the affiliate go and the tier goes: later conversions pay accordingly, the paid one keeps what it was paid under.
    harness.clock.advance(1_000);
    harness.agency.setMaster(projectId, sub.user, null);
    harness.agency.setTier(projectId, sub.user, null);
    harness.clock.advance(1_000);
    const second = conversion({ user, rewardBase: '9999' });
    await submitAndPay(projectId, [second]);
    expect((await harness.domain.ledger.conversion(projectId, second.id)).attribution).toEqual({
      affiliate: { id: expect.any(String), user: sub.user },
      master: null,
      upline: [],
      tierId: null,
      rebateBps: 0,
    });
    expect((await movementsOf(harness, projectId)).filter((row) => row.conversion_id === second.id).map((row) => [row.kind, row.amount])).toEqual([
      ['affiliate_payout', '999'],
    ]);
    expect((await harness.domain.ledger.conversion(projectId, first.id)).attribution?.master?.spreadBps).toBe(250);
  });

  it('records a conversion no terms cover as no_terms: no movement, its volume and revenue kept', async () => {
    const { projectId } = await projectWithTerms();
    const affiliate = newAffiliate(harness, projectId);
    const user = newUser();
    refer(harness, projectId, user, affiliate.code);
    const input = conversion({ user, name: 'signup', volumeUsd: '250.75', revenueUsd: '2.5' });
    await submitAndPay(projectId, [input]);
    expect(await harness.domain.ledger.conversion(projectId, input.id)).toMatchObject({
      status: 'no_terms',
      volumeUsd: '250.75',
      revenueUsd: '2.5',
      movements: [],
      attribution: { affiliate: { user: affiliate.user } },
    });
    expect(await checksOf(harness, projectId)).toEqual([]);
  });

  it('pays under the terms in force when the job runs: terms deleted after intake leave the conversion no_terms', async () => {
    const { projectId } = await projectWithTerms();
    const input = conversion();
    await harness.domain.conversions.submitOne(projectId, input);
    await harness.domain.terms.delete(projectId, 'trade');
    await harness.domain.payouts.payBatch(await batchOf(harness, projectId, input.id));
    expect(await statusOf(harness, projectId, input.id)).toBe('no_terms');
  });

  it('pays each conversion once however often its batch is delivered: a thousand at once in ten processes, then again', async () => {
    const { projectId } = await projectWithTerms();
    const affiliate = newAffiliate(harness, projectId);
    const users = [newUser(), newUser(), newUser()];
    for (const user of users) refer(harness, projectId, user, affiliate.code);
    const inputs = users.flatMap((user) => [conversion({ user }), conversion({ user, rewardBase: '7777' })]);
    await harness.domain.conversions.submitMany(projectId, inputs);
    const batchId = await batchOf(harness, projectId, inputs[0]!.id);
    const processes = Array.from({ length: 10 }, () => harness.anotherProcess());
    const results = await Promise.all(Array.from({ length: 1_000 }, (_, index) => processes[index % processes.length]!.payouts.payBatch(batchId)));
    // Each process shares one run among its own deliveries: what each run recorded adds up to the batch, once.
    const runs = [...new Set(results)];
    expect(runs.reduce((sum, result) => sum + result.recorded, 0)).toBe(6);
    expect(runs.reduce((sum, result) => sum + result.movements, 0)).toBe(12);
    expect(await harness.domain.payouts.payBatch(batchId)).toEqual({ recorded: 0, movements: 0 });
    expect(await movementsOf(harness, projectId)).toHaveLength(12);
    // One event per conversion, written with its movements: none twice either.
    const events = await harness.sql.query(
      "SELECT payload->>'conversion_id' AS id FROM claim.outbox WHERE project_id = $1 AND type = 'claim.conversion.processed'",
      [projectId],
    );
    expect(events.rows.map((row) => row.id).sort()).toEqual(inputs.map((input) => input.id).sort());
    // The affiliate's one open check holds its six payouts; each user's holds its two.
    const checks = await checksOf(harness, projectId);
    expect(checks.find((check) => check.identifier === affiliate.user.identifier)).toEqual({
      identifier: affiliate.user.identifier,
      reason: 'affiliate',
      status: 'open',
      amount: String(3 * (1_000 + 777)),
      movements_count: 6,
    });
    expect(checks.filter((check) => check.reason === 'end_user').map((check) => [check.amount, check.movements_count])).toEqual(
      users.map(() => [String(100 + 77), 2]),
    );
    expect((await leaderboardOf(projectId)).find((row) => row.user_type === 'affiliate')).toMatchObject({
      total_amount: String(3 * 1_777),
      total_attributions: 6,
    });
    expect(
      Number((await harness.sql.query('SELECT finished_at IS NOT NULL AS done FROM claim.conversion_batches WHERE id = $1', [batchId])).rows[0].done),
    ).toBe(1);
  });

  it('accumulates open checks per (user, currency, reason) and opens a new one once the open one is closed', async () => {
    const { projectId, currencyId } = await projectWithTerms();
    const other = await harness.domain.currencies.create(projectId, {
      chainId: '1',
      address: `0x${'ee'.repeat(20)}`,
      name: 'DAI',
      decimals: 18,
      type: 'erc20',
    });
    await harness.domain.terms.put(projectId, 'swap', termsInput(other.id, { endUser: { fixed: '5' } }));
    const user = newUser();
    await submitAndPay(projectId, [conversion({ user }), conversion({ user }), conversion({ user, name: 'swap' })]);
    expect(await checksOf(harness, projectId)).toHaveLength(2);
    // The other half of the service closes a check (signs its voucher): new movements open a new check.
    await harness.sql.query("UPDATE claim.claim_checks SET status = 'closed' WHERE project_id = $1 AND currency_id = $2", [projectId, currencyId]);
    await submitAndPay(projectId, [conversion({ user })]);
    const checks = await harness.sql.query(
      'SELECT currency_id, status, amount::text, movements_count FROM claim.claim_checks WHERE project_id = $1 ORDER BY currency_id = $2 DESC, created_at, status',
      [projectId, currencyId],
    );
    expect(checks.rows).toEqual([
      { currency_id: currencyId, status: 'closed', amount: '200', movements_count: 2 },
      { currency_id: currencyId, status: 'open', amount: '100', movements_count: 1 },
      { currency_id: other.id, status: 'open', amount: '5', movements_count: 1 },
    ]);
    // Each movement names the check it went into, and the checks hold exactly their movements.
    const reconciled = await harness.sql.query(
      `SELECT cc.id FROM claim.claim_checks cc JOIN claim.movements m ON m.claim_check_id = cc.id
       WHERE cc.project_id = $1 GROUP BY cc.id HAVING sum(m.amount) <> max(cc.amount) OR count(*) <> max(cc.movements_count)`,
      [projectId],
    );
    expect(reconciled.rows).toEqual([]);
  });

  it('keeps the ledger append-only: a movement can be neither changed nor deleted, nor written twice', async () => {
    const { projectId } = await projectWithTerms();
    const input = conversion();
    await submitAndPay(projectId, [input]);
    await expect(harness.sql.query('UPDATE claim.movements SET amount = 1 WHERE project_id = $1', [projectId])).rejects.toMatchObject({
      message: expect.stringContaining('append-only'),
    });
    await expect(harness.sql.query('DELETE FROM claim.movements WHERE project_id = $1', [projectId])).rejects.toMatchObject({
      message: expect.stringContaining('append-only'),
    });
    await expect(
      harness.sql.query(
        `INSERT INTO claim.movements (project_id, conversion_id, kind, identifier_type, identifier, currency_id, amount, claim_check_id, available_at, created_at)
         SELECT project_id, conversion_id, kind, identifier_type, identifier, currency_id, amount, claim_check_id, available_at, created_at
         FROM claim.movements WHERE project_id = $1`,
        [projectId],
      ),
    ).rejects.toMatchObject({ code: '23505', constraint: 'movements_conversion_kind_beneficiary_rebate_key' });
    expect(await movementsOf(harness, projectId)).toHaveLength(1);
  });

  it('marks what a batch still waits for as failed when it is given up, and pays nothing for it', async () => {
    const { projectId } = await projectWithTerms();
    const input = conversion();
    await harness.domain.conversions.submitOne(projectId, input);
    const batchId = await batchOf(harness, projectId, input.id);
    await harness.domain.payouts.failBatch(batchId);
    expect(await harness.domain.ledger.conversion(projectId, input.id)).toMatchObject({
      status: 'failed',
      failureReason: expect.stringContaining('send it again with the same body'),
    });
    expect(await harness.domain.payouts.payBatch(batchId)).toEqual({ recorded: 0, movements: 0 });
    expect(await movementsOf(harness, projectId)).toEqual([]);
    expect(await harness.domain.payouts.unfinished(10_000)).not.toContain(batchId);
  });

  it('pays a mixed batch so that, per user and currency, the open checks hold exactly the movements and the leaderboards their counted kinds', async () => {
    const { projectId } = await projectWithTerms();
    const affiliates = [newAffiliate(harness, projectId), newAffiliate(harness, projectId)];
    const users = Array.from({ length: 20 }, () => newUser());
    for (const [index, user] of users.entries()) if (index % 3 !== 0) refer(harness, projectId, user, affiliates[index % 2]!.code);
    const inputs = Array.from({ length: 300 }, (_, index) =>
      conversion({ user: users[index % users.length], name: index % 7 === 0 ? 'unpaid' : 'trade', rewardBase: String(1_000 + index * 37) }),
    );
    await submitAndPay(projectId, inputs);
    const statuses = await harness.sql.query(
      'SELECT status, count(*)::int AS n FROM claim.conversions WHERE project_id = $1 GROUP BY status ORDER BY status',
      [projectId],
    );
    expect(statuses.rows).toEqual([
      { status: 'no_terms', n: inputs.filter((input) => input.name === 'unpaid').length },
      { status: 'processed', n: inputs.filter((input) => input.name === 'trade').length },
    ]);
    const mismatches = await harness.sql.query(
      `WITH moved AS (
         SELECT identifier, currency_id, kind, sum(amount) AS total, count(*) AS n FROM claim.movements WHERE project_id = $1 GROUP BY 1, 2, 3
       )
       SELECT 'check' AS what, m.identifier FROM moved m
         LEFT JOIN claim.claim_checks c ON c.project_id = $1 AND c.identifier = m.identifier AND c.currency_id = m.currency_id
           AND c.reason = CASE m.kind WHEN 'affiliate_payout' THEN 'affiliate' WHEN 'end_user_payout' THEN 'end_user' ELSE 'agency' END
         WHERE c.amount IS DISTINCT FROM m.total
       UNION ALL
       SELECT 'board', m.identifier FROM moved m
         LEFT JOIN claim.leaderboard_totals t ON t.project_id = $1 AND t.identifier = m.identifier AND t.currency_id = m.currency_id
           AND t.user_type = CASE m.kind WHEN 'affiliate_payout' THEN 'affiliate' ELSE 'end_user' END
         WHERE m.kind <> 'agency_payout' AND (t.total_amount IS DISTINCT FROM m.total OR t.total_attributions IS DISTINCT FROM m.n)`,
      [projectId],
    );
    expect(mismatches.rows).toEqual([]);
    const sizes = await harness.sql.query(
      `SELECT s.user_type, s.entries::int, (SELECT count(*)::int FROM claim.leaderboard_totals t WHERE t.project_id = s.project_id AND t.user_type = s.user_type) AS actual
       FROM claim.leaderboard_sizes s WHERE s.project_id = $1 ORDER BY s.user_type`,
      [projectId],
    );
    expect(sizes.rows).toEqual([
      { user_type: 'affiliate', entries: 2, actual: 2 },
      { user_type: 'end_user', entries: 20, actual: 20 },
    ]);
  });
});
