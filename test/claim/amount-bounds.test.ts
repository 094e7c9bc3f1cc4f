import { randomUUID } from 'node:crypto';
import { createProject, randomEvmAddress } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';
import { type ClaimChain, type ClaimProject, claimProject, close, listChecks, startClaimStack } from './claim-check-stack';

const MAX = 2n ** 256n - 1n;
const DAY_MS = 86_400_000;
/** The claim service's CONVERSION_BACKFILL_DAYS in this file (365 by default). */
const BACKFILL_DAYS = 10;

/**
 * The bounds of money and time over HTTP: amounts past 2^256 − 1 (what a voucher's uint256 pays)
 * are refused with 400 AMOUNT_OUT_OF_RANGE and never stored; payouts that would take a check past
 * it go to a new check, so every check closes; a check no voucher can be signed for answers 409
 * CLAIM_CHECK_UNSIGNABLE, never 500; and occurred_at may be at most CONVERSION_BACKFILL_DAYS before
 * the project's creation (400 OCCURRED_AT_OUT_OF_RANGE naming the earliest time).
 */
describe('amount and date bounds (HTTP)', () => {
  let stack: TestStack;
  let claimChain: ClaimChain;
  let project: ClaimProject;

  beforeAll(async () => {
    ({ stack, claimChain } = await startClaimStack({ serviceEnv: { claim: { CONVERSION_BACKFILL_DAYS: String(BACKFILL_DAYS) } } }));
    stack.clock.set(new Date(Number(await claimChain.chain.timestamp()) * 1000));
    project = await claimProject(stack, claimChain);
    const terms = await stack.api.request('PUT', `/api/v1/projects/${project.id}/payout-terms/whale`, {
      key: project.keys.admin,
      body: { currency_id: project.currencyId, end_user: { bps: 10_000 } },
    });
    if (terms.status !== 201) throw new Error(`terms failed: ${terms.status} ${terms.text}`);
  });
  afterAll(async () => {
    await stack?.stop();
    await claimChain?.chain.stop();
  });

  const submit = (body: Record<string, unknown>) => stack.api.post('/api/v1/conversions', { key: project.keys.service, body });
  const conversion = (fields: Record<string, unknown> = {}) => ({
    id: `order-${randomUUID()}`,
    name: 'trade',
    user: { identifier: randomEvmAddress(), identifier_type: 'evm_address' },
    reward_base: '10000',
    ...fields,
  });
  const stored = async (id: string) => (await stack.api.get(`/api/v1/conversions/${id}`, { key: project.keys.service })).status !== 404;
  const paid = (id: string) =>
    pollUntil(
      async () => {
        const response = await stack.api.get(`/api/v1/conversions/${id}`, { key: project.keys.service });
        return response.body?.status === 'processed' ? response.body : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 50, what: `conversion ${id} to be paid` },
    );

  it('refuses a fixed reward past 2^256 − 1 with 400 AMOUNT_OUT_OF_RANGE, storing nothing', async () => {
    const response = await stack.api.request('PUT', `/api/v1/projects/${project.id}/payout-terms/huge`, {
      key: project.keys.admin,
      body: { currency_id: project.currencyId, affiliate: { fixed: (MAX + 1n).toString() } },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      status: 400,
      code: 'AMOUNT_OUT_OF_RANGE',
      message: `affiliate.fixed: must be at most 2^256 − 1 = ${MAX} base units (the most a voucher can pay)`,
      details: [{ field: 'affiliate.fixed', reason: `must be at most 2^256 − 1 = ${MAX} base units (the most a voucher can pay)` }],
    });
    expect((await stack.api.get(`/api/v1/projects/${project.id}/payout-terms/huge`, { key: project.keys.admin })).status).toBe(404);
  });

  it('refuses a reward_base past 2^256 − 1 with 400 AMOUNT_OUT_OF_RANGE, alone and as a batch item, storing nothing', async () => {
    const body = conversion({ reward_base: '9'.repeat(78) });
    const response = await submit(body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      status: 400,
      code: 'AMOUNT_OUT_OF_RANGE',
      details: [{ field: 'reward_base', reason: expect.stringContaining(String(MAX)) }],
    });
    expect(await stored(body.id)).toBe(false);

    const fine = conversion();
    const past = conversion({ reward_base: (MAX + 1n).toString() });
    const batch = await stack.api.post('/api/v1/conversions/batch', { key: project.keys.service, body: { conversions: [fine, past] } });
    expect(batch.status).toBe(202);
    expect(batch.body.results).toEqual([
      { id: fine.id, outcome: 'accepted', status: 'accepted', error: null },
      {
        id: past.id,
        outcome: 'refused',
        status: null,
        error: {
          status: 400,
          code: 'AMOUNT_OUT_OF_RANGE',
          message: expect.stringContaining('conversions[1].reward_base'),
          details: [{ field: 'conversions[1].reward_base', reason: expect.any(String) }],
        },
      },
    ]);
    expect(await stored(past.id)).toBe(false);
  });

  it('pays what would take a check past 2^256 − 1 into a new open check, and every check closes into a voucher', async () => {
    const user = randomEvmAddress();
    // Each pays the user 2^256 − 1: together, twice what one voucher can carry.
    const first = conversion({ name: 'whale', user: { identifier: user, identifier_type: 'evm_address' }, reward_base: MAX.toString() });
    const second = conversion({ name: 'whale', user: { identifier: user, identifier_type: 'evm_address' }, reward_base: MAX.toString() });
    for (const body of [first, second]) {
      expect((await submit(body)).status).toBe(202);
      await paid(body.id);
    }
    const open = (await listChecks(stack, project, user, '&status=open')).results;
    expect(open.map((check) => check.amount)).toEqual([MAX.toString(), MAX.toString()]);
    const closed = await close(
      stack,
      project,
      user,
      open.map((check) => check.id as string),
    );
    expect(closed.status).toBe(200);
    expect(closed.body.map((voucher: { amount: string; signatures: string[] }) => [voucher.amount, voucher.signatures.length])).toEqual([
      [MAX.toString(), 2],
      [MAX.toString(), 2],
    ]);
    const totals = await stack.api.get(`/api/v1/claim-checks/totals?user_identifier=${user}`, { key: project.keys.service });
    expect(totals.body.unclaimed).toEqual([expect.objectContaining({ amount: (2n * MAX).toString() })]);
  });

  it('answers 409 CLAIM_CHECK_UNSIGNABLE, closing nothing, for a check no voucher the ClaimManager pays can be signed for', async () => {
    // The zero address is a valid evm_address that earns, but ClaimManager pays no voucher to it.
    const zero = `0x${'0'.repeat(40)}`;
    const body = conversion({ user: { identifier: zero, identifier_type: 'evm_address' } });
    expect((await submit(body)).status).toBe(202);
    await paid(body.id);
    const [check] = (await listChecks(stack, project, zero, '&status=open')).results;
    const refused = await close(stack, project, zero, [check!.id as string]);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      status: 409,
      code: 'CLAIM_CHECK_UNSIGNABLE',
      message: expect.stringContaining('nothing was closed'),
      details: [{ field: 'claim_check_ids[0]', reason: 'to must not be the zero address' }],
    });
    expect((await listChecks(stack, project, zero, '&status=open')).results.map((listed) => listed.id)).toEqual([check!.id]);
    expect((await stack.db.query('SELECT count(*)::int AS n FROM claim.vouchers WHERE claim_check_id = $1', [check!.id])).rows[0].n).toBe(0);
  });

  describe('occurred_at', () => {
    let fresh: { id: string; keys: { service: string } };
    let earliest: Date;
    beforeAll(async () => {
      // A project created an hour ago (the claim service counts CONVERSION_BACKFILL_DAYS back from then).
      stack.clock.advance(-3_600_000);
      fresh = await createProject(stack, 'Backfilled program');
      stack.clock.advance(3_600_000);
      const { rows } = await stack.db.query<{ created_at: Date }>('SELECT created_at FROM access.projects WHERE id = $1', [fresh.id]);
      earliest = new Date(rows[0]!.created_at.getTime() - BACKFILL_DAYS * DAY_MS);
    });
    const send = (occurredAt: Date) =>
      stack.api.post('/api/v1/conversions', { key: fresh.keys.service, body: conversion({ occurred_at: occurredAt.toISOString() }) });

    it('refuses one before the project’s creation less CONVERSION_BACKFILL_DAYS with 400 OCCURRED_AT_OUT_OF_RANGE, naming the earliest time', async () => {
      for (const occurredAt of [new Date(earliest.getTime() - 1_000), new Date('1970-01-01T00:00:00.000Z')]) {
        const response = await send(occurredAt);
        expect(response.status).toBe(400);
        expect(response.body).toEqual({
          status: 400,
          code: 'OCCURRED_AT_OUT_OF_RANGE',
          message: expect.stringContaining(`occurred_at: must be at or after ${earliest.toISOString()}`),
          details: [{ field: 'occurred_at', reason: expect.stringContaining(`up to ${BACKFILL_DAYS} days before`) }],
        });
      }
      const batch = await stack.api.post('/api/v1/conversions/batch', {
        key: fresh.keys.service,
        body: { conversions: [conversion({ occurred_at: '1970-01-01T00:00:00Z' })] },
      });
      expect(batch.status).toBe(200);
      expect(batch.body.results[0].error).toMatchObject({
        status: 400,
        code: 'OCCURRED_AT_OUT_OF_RANGE',
        details: [{ field: 'conversions[0].occurred_at' }],
      });
    });

    it('accepts the earliest time itself (an hour before the project existed is well inside the window)', async () => {
      expect((await send(earliest)).status).toBe(202);
      expect((await send(new Date(stack.clock.now().getTime() - 2 * 3_600_000))).status).toBe(202);
    });
  });
});
