import { payConversionsJob } from '../../services/claim/jobs/pay-conversions.job';
import { QueueKit } from '../../services/platform/queue';
import { createProject, randomEvmAddress } from '../helpers/fixtures';
import type { ApiResponse } from '../helpers/http';
import type { TestStack } from '../helpers/stack';
import { type ClaimChain, type ClaimProject, claimProject, close, listChecks, newAffiliate, startClaimStack } from './claim-check-stack';
import { conversionBody, evmUser, settled } from './claim-fixtures';

/**
 * Reversals over HTTP against the whole stack (docs/claims.md#reversals), with ClaimManager on the
 * in-process EVM so that a check can be closed into a voucher: every status of
 * POST /api/v1/conversions/:conversionId/reverse with the standard error body, a retry answering the
 * first reversal, a reversal after a close becoming debt (totals, reconciliation, a close refused
 * while the check holds only debt, later earnings paying it), and the conversion listing its
 * reversals. The many cases of where the money is are in test/medium/claim/reversals.test.ts.
 */
describe('reversals (HTTP)', () => {
  let stack: TestStack;
  let claimChain: ClaimChain;
  let project: ClaimProject;
  let queues: QueueKit;

  beforeAll(async () => {
    ({ stack, claimChain } = await startClaimStack());
    project = await claimProject(stack, claimChain);
    queues = new QueueKit({ redisUrl: stack.redisUrl, prefix: stack.queuePrefix, logger: stack.logs.logger('test-queue') });
    await queues.ready();
  }, 60_000);
  afterAll(async () => {
    await queues?.close();
    await stack?.stop();
    await claimChain?.chain.stop();
  });
  // The service's clock follows the chain's (vouchers carry deadlines from it).
  beforeEach(async () => stack.clock.set(new Date(Number(await claimChain.chain.timestamp()) * 1000)));

  const reverse = (conversionId: string, body: unknown, key = project.keys.service) =>
    stack.api.post(`/api/v1/conversions/${encodeURIComponent(conversionId)}/reverse`, { key, body });

  /** Sends a `trade` conversion (1% to the user, 10% to its referrer) and waits until it is paid. */
  async function pay(user: string, rewardBase: number, referralCode?: string): Promise<string> {
    const body = conversionBody({
      user: evmUser(user),
      reward_base: String(rewardBase),
      ...(referralCode ? { referral_code: referralCode } : {}),
    });
    const submitted = await stack.api.post('/api/v1/conversions', { key: project.keys.service, body });
    expect(submitted.status).toBe(202);
    expect((await settled(stack, project, body.id, 20_000)).status).toBe('processed');
    return body.id;
  }

  const totals = async (user: string) => {
    const response = await stack.api.get(`/api/v1/claim-checks/totals?user_identifier=${user}`, { key: project.keys.readOnly });
    expect(response.status).toBe(200);
    return response.body as Record<'claimed' | 'unclaimed' | 'pending' | 'debt', Array<{ amount: string }>>;
  };
  const amounts = (list: Array<{ amount: string }>) => list.map((total) => total.amount);

  const reconciliation = async () => {
    const response = await stack.api.get(`/api/v1/projects/${project.id}/ledger/reconciliation?currency_id=${project.currencyId}`, {
      key: project.keys.admin,
    });
    expect(response.status).toBe(200);
    return response.body as { results: Array<Record<string, unknown> & { kind: string }>; balanced: boolean };
  };

  /** An error answer in the one error body, with its status and code. */
  function expectError(response: ApiResponse, status: number, code: string) {
    expect({ status: response.status, body: response.body }).toEqual({
      status,
      body: { status, code, message: expect.any(String), details: expect.any(Array) },
    });
  }

  /** The conversion's reversals: none written when a request was refused. */
  async function storedReversals(conversionId: string): Promise<number> {
    const { rows } = await stack.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM claim.conversion_reversals WHERE project_id = $1 AND conversion_id = $2',
      [project.id, conversionId],
    );
    return rows[0]!.n;
  }

  it('reverses a share (201), answers a retry with the first reversal (200), refuses a reused id and too large a share (409), and lists the reversals on the conversion', async () => {
    const affiliate = await newAffiliate(stack, project);
    const user = randomEvmAddress();
    const id = await pay(user, 1_000_003, affiliate.code); // affiliate 100000, user 10000
    const [affiliateCheck] = (await listChecks(stack, project, affiliate.identifier, '&status=open')).results;
    const [userCheck] = (await listChecks(stack, project, user, '&status=open')).results;

    const body = { reversal_id: `refund-${id}`, reason: 'refunded', share_bps: 2_500 };
    const first = await reverse(id, body);
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      reversal_id: body.reversal_id,
      conversion_id: id,
      share_bps: 2_500,
      reason: 'refunded',
      volume_usd: null,
      revenue_usd: null,
      reversed_by: project.keyIds.service,
      created_at: stack.clock.now().toISOString(),
      movements: [
        {
          kind: 'affiliate_payout',
          rebate: false,
          level: 1,
          user_identifier: affiliate.identifier,
          user_identifier_type: 'evm_address',
          currency_id: project.currencyId,
          amount: '25000',
          was: 'available',
          claim_check_id: affiliateCheck!.id,
          from_check: '25000',
          to_debt: '0',
        },
        {
          kind: 'end_user_payout',
          rebate: false,
          level: null,
          user_identifier: user,
          user_identifier_type: 'evm_address',
          currency_id: project.currencyId,
          amount: '2500',
          was: 'available',
          claim_check_id: userCheck!.id,
          from_check: '2500',
          to_debt: '0',
        },
      ],
    });
    expect(amounts((await totals(user)).unclaimed)).toEqual(['7500']);

    // The same id and body again: the first reversal, nothing taken twice.
    const again = await reverse(id, body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(amounts((await totals(user)).unclaimed)).toEqual(['7500']);
    expect(await storedReversals(id)).toBe(1);

    // Another body under the id (another share, another reason, another conversion): refused, nothing changed.
    const other = await pay(user, 10_000);
    for (const [conversionId, reused] of [
      [id, { ...body, share_bps: 2_000 }],
      [id, { ...body, reason: 'chargeback' }],
      [id, { reversal_id: body.reversal_id, reason: body.reason }],
      [other, body],
    ] as const) {
      const refused = await reverse(conversionId, reused);
      expectError(refused, 409, 'REVERSAL_ID_REUSED');
      expect(refused.body.details).toEqual([expect.objectContaining({ field: 'reversal_id' })]);
    }
    expect(await storedReversals(other)).toBe(0);

    // An admin key reverses too (the dashboard); 3333 bps of 100000 is 33330, of 10000 is 3333.
    const second = await reverse(id, { reversal_id: `second-${id}`, reason: 'partial refund', share_bps: 3_333 }, project.keys.admin);
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ reversed_by: project.keyIds.admin, share_bps: 3_333 });
    expect(second.body.movements.map((part: { amount: string }) => part.amount)).toEqual(['33330', '3333']);

    // 2500 + 3333 taken: 4167 bps remain, 4168 is refused; left out, share_bps means all of it (10000), refused too.
    for (const tooMuch of [{ share_bps: 4_168 }, {}]) {
      const exceeded = await reverse(id, { reversal_id: `third-${id}`, reason: 'the rest', ...tooMuch });
      expectError(exceeded, 409, 'REVERSAL_SHARE_EXCEEDED');
      expect(exceeded.body.details).toEqual([{ field: 'share_bps', reason: 'must be at most 4167' }]);
    }
    expect(await storedReversals(id)).toBe(2);

    // The conversion lists its reversals, oldest first, as the reversal answered them; the list leaves them out.
    for (const key of [project.keys.service, project.keys.readOnly, project.keys.admin]) {
      const detail = await stack.api.get(`/api/v1/conversions/${id}`, { key });
      expect(detail.status).toBe(200);
      expect(detail.body.reversals).toEqual([first.body, second.body]);
    }
    expect((await stack.api.get(`/api/v1/conversions/${other}`, { key: project.keys.service })).body.reversals).toEqual([]);
    const list = await stack.api.get(`/api/v1/projects/${project.id}/conversions?user_identifier=${user}`, { key: project.keys.readOnly });
    expect(list.body.results.map((item: Record<string, unknown>) => 'reversals' in item)).toEqual([false, false]);

    expect(amounts((await totals(user)).unclaimed)).toEqual([String(10_000 - 2_500 - 3_333 + 100)]);
    expect((await reconciliation()).balanced).toBe(true);
  }, 60_000);

  it('refuses read_only keys (403), unknown conversions (404), unpaid ones (409) and bad bodies (400), writing nothing and never a 500', async () => {
    const user = randomEvmAddress();
    const id = await pay(user, 100_000);
    const body = { reversal_id: `refund-${id}`, reason: 'refunded' };

    const readOnly = await reverse(id, body, project.keys.readOnly);
    expectError(readOnly, 403, 'FORBIDDEN');
    expect(readOnly.body.details).toEqual([]);

    // Unknown here: no such id, or a conversion of another project (its key learns nothing of this one).
    const elsewhere = await createProject(stack, 'Another program');
    for (const [conversionId, key] of [
      ['no-such-conversion', project.keys.service],
      [id, elsewhere.keys.service],
      [id, elsewhere.keys.admin],
    ] as const) {
      expectError(await reverse(conversionId, body, key), 404, 'CONVERSION_NOT_FOUND');
    }

    // Bad bodies: 400 VALIDATION_FAILED naming the field.
    const bad: Array<[unknown, string]> = [
      [{}, 'reversal_id'],
      [{ reason: 'refunded' }, 'reversal_id'],
      [{ reversal_id: 'r' }, 'reason'],
      [{ ...body, reversal_id: '' }, 'reversal_id'],
      [{ ...body, reversal_id: 'x'.repeat(256) }, 'reversal_id'],
      [{ ...body, reversal_id: 42 }, 'reversal_id'],
      [{ ...body, reason: '   ' }, 'reason'],
      [{ ...body, reason: 'x'.repeat(501) }, 'reason'],
      [{ ...body, share_bps: 0 }, 'share_bps'],
      [{ ...body, share_bps: -1 }, 'share_bps'],
      [{ ...body, share_bps: 10_001 }, 'share_bps'],
      [{ ...body, share_bps: 1.5 }, 'share_bps'],
      [{ ...body, share_bps: '5000' }, 'share_bps'],
      [{ ...body, share_bps: null }, 'share_bps'],
      [{ ...body, share_bps: 1e308 }, 'share_bps'],
      [{ ...body, amount: '100' }, 'amount'],
    ];
    for (const [sent, field] of bad) {
      const refused = await reverse(id, sent);
      expectError(refused, 400, 'VALIDATION_FAILED');
      expect({ sent, fields: refused.body.details.map((detail: { field: string }) => detail.field) }).toEqual({
        sent,
        fields: expect.arrayContaining([field]),
      });
    }
    for (const sent of [null, [], 'text', 42]) expect((await reverse(id, sent)).status).toBe(400);
    // An id longer than any conversion's is refused before any lookup.
    expectError(await reverse('x'.repeat(129), body), 400, 'VALIDATION_FAILED');
    // Hostile ids with a valid body reach the service: refused (400) or unknown (404), never a 500.
    for (const hostile of [
      ' ',
      '-1',
      '1e309',
      'NaN',
      '%00',
      '%ff',
      '💥',
      '\u202e',
      '..',
      '../..',
      'A'.repeat(36),
      '\u0001\u001f\u007f',
      'x'.repeat(128),
    ]) {
      const answer = await reverse(hostile, body);
      expect({ hostile, refused: [400, 404].includes(answer.status) }).toEqual({ hostile, refused: true });
      expectError(answer, answer.status, answer.body.code);
    }
    expect(await storedReversals(id)).toBe(0);

    // Odd but valid: ids and reasons of any characters, up to their limits, are kept as sent.
    const odd = [
      { reversal_id: '💥'.repeat(127), reason: 'x'.repeat(500), share_bps: 1 },
      { reversal_id: '\u202eright-to-left', reason: 'émoji 💥 and ⁄ slashes / ..', share_bps: 1 },
      { reversal_id: "'; DROP TABLE claim.conversion_reversals; --", reason: '%00 %ff', share_bps: 1 },
    ];
    for (const sent of odd) {
      const answer = await reverse(id, sent);
      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject(sent);
    }
    expect(await storedReversals(id)).toBe(odd.length);

    // Not paid yet: the payment job's queue paused, the conversion stays accepted and cannot be reversed.
    const paused = queues.queue(payConversionsJob.queue);
    await paused.pause();
    const waiting = conversionBody({ user: evmUser(user), reward_base: '100000' });
    try {
      expect((await stack.api.post('/api/v1/conversions', { key: project.keys.service, body: waiting })).status).toBe(202);
      const unpaid = await reverse(waiting.id, { ...body, reversal_id: `refund-${waiting.id}` });
      expectError(unpaid, 409, 'CONVERSION_NOT_PROCESSED');
      expect((await stack.api.get(`/api/v1/conversions/${waiting.id}`, { key: project.keys.service })).body.status).toBe('accepted');
    } finally {
      await paused.resume();
    }
    expect(await storedReversals(waiting.id)).toBe(0);
    // Once paid, the same request reverses it.
    await settled(stack, project, waiting.id, 20_000);
    expect((await reverse(waiting.id, { ...body, reversal_id: `refund-${waiting.id}` })).status).toBe(201);
    expect((await reconciliation()).balanced).toBe(true);
  }, 60_000);

  it('turns what a voucher already carried into debt: totals and the reconciliation show it, balanced; the check holding only debt cannot close; later earnings pay it first', async () => {
    const user = randomEvmAddress();
    const id = await pay(user, 1_000_000); // the user is paid 10000
    const [open] = (await listChecks(stack, project, user, '&status=open')).results;
    const closed = await close(stack, project, user, [open!.id]);
    expect(closed.status).toBe(200);
    const before = await reconciliation();

    const reversed = await reverse(id, { reversal_id: `refund-${id}`, reason: 'chargeback' });
    expect(reversed.status).toBe(201);
    expect(reversed.body.movements).toEqual([
      expect.objectContaining({
        kind: 'end_user_payout',
        amount: '10000',
        was: 'available',
        claim_check_id: open!.id,
        from_check: '0',
        to_debt: '10000',
      }),
    ]);

    // The voucher stays what it was; the user owes 10000 of the currency: what was available is now debt.
    const owed = await totals(user);
    expect(amounts(owed.debt)).toEqual(['10000']);
    expect(owed.debt).toEqual([expect.objectContaining({ currency_address: claimChain.token.toLowerCase() })]);
    expect(amounts(owed.claimed)).toEqual([]);
    const books = await reconciliation();
    expect(books.balanced).toBe(true);
    const line = (of: typeof books, kind: string) => of.results.find((result) => result.kind === kind)!;
    const plus = (a: unknown, b: bigint) => String(BigInt(a as string) + b);
    const userLine = line(before, 'end_user_payout');
    expect(line(books, 'end_user_payout')).toEqual({
      ...userLine,
      reversed: plus(userLine.reversed, 10_000n),
      available: plus(userLine.available, -10_000n),
      debt: plus(userLine.debt, 10_000n),
      balanced: true,
    });

    // The debt is carried on an open check that holds nothing: closing it is refused, nothing closed.
    const carrying = (await listChecks(stack, project, user, '&status=open')).results;
    expect(carrying.map((check) => check.amount)).toEqual(['0']);
    const refused = await close(stack, project, user, [carrying[0]!.id]);
    expectError(refused, 409, 'CLAIM_CHECK_NOT_POSITIVE');
    expect(refused.body.details).toEqual([expect.objectContaining({ reason: expect.stringContaining('net amount is 0') })]);
    expect((await listChecks(stack, project, user, '&status=open')).results.map((check) => check.id)).toEqual([carrying[0]!.id]);

    // A later payment of 15000 pays the 10000 owed first and leaves 5000 to claim.
    await pay(user, 1_500_000);
    const after = await totals(user);
    expect([amounts(after.debt), amounts(after.unclaimed)]).toEqual([[], ['15000']]);
    expect((await listChecks(stack, project, user, '&status=open')).results.map((check) => check.amount)).toEqual(['5000']);
    const settledBooks = await reconciliation();
    expect(settledBooks.balanced).toBe(true);
    expect(line(settledBooks, 'end_user_payout').debt).toBe(userLine.debt);
  }, 60_000);
});
