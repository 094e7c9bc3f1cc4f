import { randomUUID } from 'node:crypto';
import { AgencyServiceClient } from '../../gen/referral/agency/v1/agency';
import { AudienceServiceClient } from '../../gen/referral/audience/v1/audience';
import { createGrpcClient } from '../../services/platform/grpc/client';
import { conversionBody, createCurrency, putTerms } from '../claim/claim-fixtures';
import type { ServiceProcess } from '../helpers/faults/service-process';
import { useFaultStack } from '../helpers/faults/use-fault-stack';
import { createProject, randomEvmAddress, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';

/**
 * The claim service's money path through faults (beside the agency and audience services it asks
 * for attribution and tiers): the claim service is a real process, killed with
 * SIGKILL while it pays a stream of conversions, and Redis (a server of the test's own) is stopped
 * mid-stream and started again empty. Afterwards every conversion is paid exactly once, and the
 * sums hold: per user and currency the open claim checks hold exactly the movements, the
 * leaderboards exactly the counted kinds, and the outbox one event per conversion. The audience
 * service, which payout terms' allowlists are checked in, is killed while batches whose terms name
 * allowlists are paid: they wait for it, and are then paid once each, eligible sides only.
 */
const END_USER = 7n;
const AFFILIATE = 11n;
/** The master's spread in the allowlist case: 10 % of each conversion's reward_base of 10,000. */
const SPREAD = 1_000n;
const BATCH = 1_000;

describe('paying conversions through process deaths and Redis loss', () => {
  const stack = useFaultStack({ services: ['audience', 'agency', 'claim'], ownRedis: true, serviceEnv: { CONVERSION_WORKER_CONCURRENCY: '1' } });
  let claim: ServiceProcess;
  let agency: ReturnType<typeof createGrpcClient<AgencyServiceClient>>;
  let audience: ReturnType<typeof createGrpcClient<AudienceServiceClient>>;
  beforeAll(() => {
    claim = stack.service('claim');
    agency = createGrpcClient(AgencyServiceClient, stack.service('agency').address, 10_000);
    audience = createGrpcClient(AudienceServiceClient, stack.service('audience').address, 30_000);
    stack.atStop(() => agency.close());
    stack.atStop(() => audience.close());
  });

  /** A project paying `trade` conversions fixed amounts, whose referred users (every third) earn their affiliate a payout. */
  async function setUp() {
    const project = await createProject(stack.gateway);
    const currency = await createCurrency(stack.gateway, project);
    await putTerms(stack.gateway, project, 'trade', {
      currency_id: currency.id,
      end_user: { fixed: String(END_USER) },
      affiliate: { fixed: String(AFFILIATE) },
    });
    const affiliate = { identifier: randomEvmAddress(), identifierType: 'evm_address' };
    const code = `f${randomUUID().slice(0, 8)}`;
    await agency.call.createAffiliate({ projectId: project.id, user: affiliate, name: 'Affiliate', code });
    const users = Array.from({ length: 300 }, () => randomEvmAddress());
    for (const [index, identifier] of users.entries()) {
      if (index % 3 === 0) await agency.call.createReferral({ projectId: project.id, user: { identifier, identifierType: 'evm_address' }, code });
    }
    return { project, affiliate, users, referred: new Set(users.filter((_, index) => index % 3 === 0)) };
  }

  const batchOf = (users: string[], count: number) =>
    Array.from({ length: count }, (_, index) =>
      conversionBody({ user: { identifier: users[index % users.length], identifier_type: 'evm_address' } }),
    );
  const submit = (project: TestProject, conversions: unknown[]) =>
    stack.gateway.api.post('/api/v1/conversions/batch', { key: project.keys.service, body: { conversions } });

  const batchStates = async (projectId: string) =>
    (
      await stack.db.query<{ finished: boolean }>('SELECT finished_at IS NOT NULL AS finished FROM claim.conversion_batches WHERE project_id = $1', [
        projectId,
      ])
    ).rows;

  /** Until some batch is paid while others still wait: the middle of the stream. */
  const untilMidStream = (projectId: string) =>
    pollUntil(
      async () => {
        const states = await batchStates(projectId);
        return states.some((state) => state.finished) && states.some((state) => !state.finished);
      },
      { timeoutMs: 30_000, intervalMs: 5, what: 'some batches paid while others wait' },
    );

  /** Every conversion paid exactly once, and every sum right. */
  async function expectPaidExactlyOnce(setup: Awaited<ReturnType<typeof setUp>>, conversions: Array<{ id: string; user: { identifier: string } }>) {
    const projectId = setup.project.id;
    await pollUntil(
      async () => {
        const { rows } = await stack.db.query("SELECT count(*)::int AS n FROM claim.conversions WHERE project_id = $1 AND status <> 'processed'", [
          projectId,
        ]);
        return rows[0].n === 0;
      },
      { timeoutMs: 60_000, intervalMs: 100, what: `all ${conversions.length} conversions to be paid` },
    );
    const referredCount = conversions.filter((conversion) => setup.referred.has(conversion.user.identifier)).length;
    const counts = await stack.db.query(
      `SELECT (SELECT count(*)::int FROM claim.conversions WHERE project_id = $1) AS conversions,
              (SELECT count(*)::int FROM claim.movements WHERE project_id = $1 AND kind = 'end_user_payout') AS end_user,
              (SELECT count(*)::int FROM claim.movements WHERE project_id = $1 AND kind = 'affiliate_payout') AS affiliate,
              (SELECT count(*)::int FROM claim.outbox WHERE project_id = $1 AND type = 'claim.conversion.processed') AS events,
              (SELECT count(DISTINCT payload->>'conversion_id')::int FROM claim.outbox WHERE project_id = $1) AS distinct_events,
              (SELECT count(*)::int FROM claim.conversion_batches WHERE project_id = $1 AND finished_at IS NULL) AS unfinished`,
      [projectId],
    );
    expect(counts.rows[0]).toEqual({
      conversions: conversions.length,
      end_user: conversions.length,
      affiliate: referredCount,
      events: conversions.length,
      distinct_events: conversions.length,
      unfinished: 0,
    });
    const checks = await stack.db.query(
      "SELECT identifier, reason, amount::text, movements_count FROM claim.claim_checks WHERE project_id = $1 AND status = 'open'",
      [projectId],
    );
    const affiliateCheck = checks.rows.find((row) => row.identifier === setup.affiliate.identifier);
    expect(affiliateCheck).toEqual({
      identifier: setup.affiliate.identifier,
      reason: 'affiliate',
      amount: String(AFFILIATE * BigInt(referredCount)),
      movements_count: referredCount,
    });
    const perUser = new Map<string, number>();
    for (const conversion of conversions) perUser.set(conversion.user.identifier, (perUser.get(conversion.user.identifier) ?? 0) + 1);
    const endUserChecks = checks.rows.filter((row) => row.reason === 'end_user');
    expect(endUserChecks).toHaveLength(perUser.size);
    for (const row of endUserChecks)
      expect([row.amount, row.movements_count]).toEqual([String(END_USER * BigInt(perUser.get(row.identifier)!)), perUser.get(row.identifier)]);
    const board = await stack.db.query(
      `SELECT t.user_type, count(*)::int AS entries, sum(t.total_amount)::text AS total, sum(t.total_attributions)::int AS attributions, max(s.entries)::int AS size
       FROM claim.leaderboard_totals t JOIN claim.leaderboard_sizes s USING (project_id, currency_id, user_type)
       WHERE t.project_id = $1 GROUP BY t.user_type ORDER BY t.user_type`,
      [projectId],
    );
    expect(board.rows).toEqual([
      { user_type: 'affiliate', entries: 1, total: String(AFFILIATE * BigInt(referredCount)), attributions: referredCount, size: 1 },
      {
        user_type: 'end_user',
        entries: perUser.size,
        total: String(END_USER * BigInt(conversions.length)),
        attributions: conversions.length,
        size: perUser.size,
      },
    ]);
  }

  it('pays every conversion exactly once when the claim process is killed (SIGKILL) mid-stream and restarted', async () => {
    const setup = await setUp();
    const batches = Array.from({ length: 12 }, () => batchOf(setup.users, BATCH));
    const answers = await Promise.all(batches.map((conversions) => submit(setup.project, conversions)));
    expect(answers.map((answer) => answer.status)).toEqual(batches.map(() => 202));

    await untilMidStream(setup.project.id);
    await claim.kill();
    // While the service is down the gateway says so, and nothing is stored.
    const refused = await submit(setup.project, batchOf(setup.users, 5));
    expect(refused.status).toBe(503);
    await claim.restart();

    await expectPaidExactlyOnce(setup, batches.flat());
  }, 150_000);

  it('pays every conversion exactly once when Redis is lost mid-stream, accepting conversions meanwhile, without a restart', async () => {
    const setup = await setUp();
    const batches = Array.from({ length: 8 }, () => batchOf(setup.users, BATCH));
    const answers = await Promise.all(batches.map((conversions) => submit(setup.project, conversions)));
    expect(answers.map((answer) => answer.status)).toEqual(batches.map(() => 202));
    await untilMidStream(setup.project.id);

    await stack.redis!.stop();
    // PostgreSQL is the truth: conversions are still taken in while Redis is away, and paid once it is back.
    const during = batchOf(setup.users, 500);
    const accepted = await submit(setup.project, during);
    expect(accepted.status).toBe(202);
    expect(accepted.body.accepted).toBe(500);
    batches.push(during);

    await stack.redis!.startEmpty();
    await expectPaidExactlyOnce(setup, batches.flat());
    expect(claim.linesWith('relay queued stored work that had no job').length).toBeGreaterThan(0);
  }, 150_000);

  it('waits for the audience service, killed while batches whose terms name allowlists are paid, then pays each conversion once, eligible sides only', async () => {
    const audienceProcess = stack.service('audience');
    const project = await createProject(stack.gateway);
    const currency = await createCurrency(stack.gateway, project);
    const user = (identifier: string) => ({ identifier, identifierType: 'evm_address' });
    // Two affiliates under one master: `listed` is on the affiliates' allowlist, `unlisted` is not (nor is the master).
    const [listed, unlisted, master] = [user(randomEvmAddress()), user(randomEvmAddress()), user(randomEvmAddress())];
    const codes = [`l${randomUUID().slice(0, 8)}`, `u${randomUUID().slice(0, 8)}`];
    await agency.call.createAffiliate({ projectId: project.id, user: listed, name: 'Listed', code: codes[0] });
    await agency.call.createAffiliate({ projectId: project.id, user: unlisted, name: 'Unlisted', code: codes[1] });
    await agency.call.createAffiliate({ projectId: project.id, user: master, name: 'Master', code: `m${randomUUID().slice(0, 8)}` });
    const designated = await agency.call.designateMaster({ projectId: project.id, user: master, spreadBps: Number(SPREAD), actor: {} });
    await agency.call.bindSubAffiliates({ projectId: project.id, masterId: designated.id, users: [listed, unlisted], actor: {} });
    // 300 users: index % 3 = 0 referred by `listed`, 1 by `unlisted`, 2 by nobody; even indexes on the end users' allowlist.
    const users = Array.from({ length: 300 }, () => randomEvmAddress());
    for (const [index, identifier] of users.entries()) {
      if (index % 3 < 2) await agency.call.createReferral({ projectId: project.id, user: user(identifier), code: codes[index % 3]! });
    }
    const [endUsers, affiliates] = [
      await audience.call.createSegment({ projectId: project.id, name: 'End users' }),
      await audience.call.createSegment({ projectId: project.id, name: 'Affiliates' }),
    ];
    const entered = await audience.call.submitEntryBatch({
      projectId: project.id,
      segmentId: endUsers.id,
      entries: users.filter((_, index) => index % 2 === 0).map(user),
      waitMs: 20_000,
    });
    expect(entered.batch).toMatchObject({ added: '150' });
    await audience.call.addEntry({ projectId: project.id, segmentId: affiliates.id, user: listed });
    await putTerms(stack.gateway, project, 'trade', {
      currency_id: currency.id,
      end_user: { fixed: String(END_USER) },
      affiliate: { fixed: String(AFFILIATE) },
      end_user_allowlist_audience_id: endUsers.id,
      affiliate_allowlist_audience_id: affiliates.id,
    });

    const batches = Array.from({ length: 6 }, () => batchOf(users, BATCH));
    const answers = await Promise.all(batches.map((conversions) => submit(project, conversions)));
    expect(answers.map((answer) => answer.status)).toEqual(batches.map(() => 202));
    await untilMidStream(project.id);
    await audienceProcess.kill();
    const finishedNow = async () => (await batchStates(project.id)).filter((state) => state.finished).length;
    // Each attempt fails while it is away (the batch is retried later, never paid without its allowlists)...
    const failed = () => claim.linesWith('job failed').filter((line) => line.includes('claim-pay-conversions')).length;
    const failuresBefore = failed();
    await pollUntil(async () => failed() > failuresBefore || undefined, {
      timeoutMs: 30_000,
      intervalMs: 20,
      what: 'a payment attempt to fail while the audience service is away',
    });
    const finishedWhileAway = await finishedNow();
    await pollUntil(async () => failed() > failuresBefore + 1 || undefined, { timeoutMs: 30_000, intervalMs: 20, what: 'a second failed attempt' });
    // ...so between two failed attempts no batch finished.
    expect(await finishedNow()).toBe(finishedWhileAway);
    expect(finishedWhileAway).toBeLessThan(batches.length);

    // Terms without allowlists never ask the audience service: another project's conversions are paid while it is away.
    const open = await createProject(stack.gateway);
    await putTerms(stack.gateway, open, 'trade', { currency_id: (await createCurrency(stack.gateway, open)).id, end_user: { fixed: '1' } });
    const openConversions = batchOf(users, 10);
    expect((await submit(open, openConversions)).status).toBe(202);
    await pollUntil(
      async () => {
        const { rows } = await stack.db.query("SELECT count(*)::int AS n FROM claim.conversions WHERE project_id = $1 AND status = 'processed'", [
          open.id,
        ]);
        return rows[0].n === openConversions.length || undefined;
      },
      { timeoutMs: 60_000, intervalMs: 50, what: 'the conversions of terms without allowlists to be paid while the audience service is away' },
    );
    expect(audienceProcess.running).toBe(false);
    // Terms naming an allowlist cannot be checked meanwhile: 503 in the standard body, and nothing saved.
    const termsPath = `/api/v1/projects/${project.id}/payout-terms/later`;
    const unchecked = await stack.gateway.api.request('PUT', termsPath, {
      key: project.keys.admin,
      body: { currency_id: currency.id, end_user: { fixed: '1' }, end_user_allowlist_audience_id: endUsers.id },
    });
    expect(unchecked.status).toBe(503);
    expect(unchecked.body).toMatchObject({ status: 503, code: 'AUDIENCE_SERVICE_UNAVAILABLE', details: [] });
    expect((await stack.gateway.api.get(termsPath, { key: project.keys.admin })).status).toBe(404);

    await audienceProcess.restart();
    const all = batches.flat();
    await pollUntil(
      async () => {
        const { rows } = await stack.db.query("SELECT count(*)::int AS n FROM claim.conversions WHERE project_id = $1 AND status <> 'processed'", [
          project.id,
        ]);
        return rows[0].n === 0 || undefined;
      },
      { timeoutMs: 120_000, intervalMs: 100, what: `all ${all.length} conversions to be paid once the audience service is back` },
    );
    const indexOf = new Map(users.map((identifier, index) => [identifier, index]));
    const count = (keep: (index: number) => boolean) => all.filter((conversion) => keep(indexOf.get(conversion.user.identifier)!)).length;
    const expected = {
      conversions: all.length,
      end_user: count((index) => index % 2 === 0),
      affiliate: count((index) => index % 3 === 0),
      agency: count((index) => index % 3 === 0),
      end_user_eligible: count((index) => index % 2 === 0),
      end_user_not_eligible: count((index) => index % 2 === 1),
      affiliate_eligible: count((index) => index % 3 === 0),
      affiliate_not_eligible: count((index) => index % 3 === 1),
      events: all.length,
      unfinished: 0,
    };
    const counts = await stack.db.query(
      `SELECT (SELECT count(*)::int FROM claim.conversions WHERE project_id = $1) AS conversions,
              (SELECT count(*)::int FROM claim.movements WHERE project_id = $1 AND kind = 'end_user_payout') AS end_user,
              (SELECT count(*)::int FROM claim.movements WHERE project_id = $1 AND kind = 'affiliate_payout' AND identifier = $2) AS affiliate,
              (SELECT count(*)::int FROM claim.movements WHERE project_id = $1 AND kind = 'agency_payout' AND identifier = $3) AS agency,
              (SELECT count(*)::int FROM claim.conversions WHERE project_id = $1 AND end_user_eligible) AS end_user_eligible,
              (SELECT count(*)::int FROM claim.conversions WHERE project_id = $1 AND NOT end_user_eligible) AS end_user_not_eligible,
              (SELECT count(*)::int FROM claim.conversions WHERE project_id = $1 AND affiliate_eligible) AS affiliate_eligible,
              (SELECT count(*)::int FROM claim.conversions WHERE project_id = $1 AND NOT affiliate_eligible) AS affiliate_not_eligible,
              (SELECT count(DISTINCT payload->>'conversion_id')::int FROM claim.outbox WHERE project_id = $1 AND type = 'claim.conversion.processed') AS events,
              (SELECT count(*)::int FROM claim.conversion_batches WHERE project_id = $1 AND finished_at IS NULL) AS unfinished`,
      [project.id, listed.identifier, master.identifier],
    );
    expect(counts.rows[0]).toEqual(expected);
    // Paid once: every movement of the project is for an eligible side, and the open checks hold exactly them.
    const totals = await stack.db.query(
      `SELECT reason, sum(amount)::text AS amount, sum(movements_count)::int AS movements FROM claim.claim_checks WHERE project_id = $1 GROUP BY reason ORDER BY reason`,
      [project.id],
    );
    expect(totals.rows).toEqual([
      { reason: 'affiliate', amount: String(AFFILIATE * BigInt(expected.affiliate)), movements: expected.affiliate },
      { reason: 'agency', amount: String(SPREAD * BigInt(expected.agency)), movements: expected.agency },
      { reason: 'end_user', amount: String(END_USER * BigInt(expected.end_user)), movements: expected.end_user },
    ]);
    expect(claim.linesWith('conversions marked failed')).toEqual([]);
  }, 240_000);
});
