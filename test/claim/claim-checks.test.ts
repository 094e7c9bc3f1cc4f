import { randomEvmAddress } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';
import { newWallet, signIn } from '../helpers/wallet';
import { adminPaths, signedInAffiliate, w8ben } from '../tax/tax-forms';
import {
  type ClaimChain,
  type ClaimProject,
  type ClaimResponse,
  claimProject,
  close,
  CONFIRMATIONS,
  earn,
  isRedeemed,
  listChecks,
  newAffiliate,
  startClaimStack,
  TTL_SECONDS,
} from './claim-check-stack';

/**
 * The claim-check API over HTTP against the whole stack, with ClaimManager on the in-process EVM
 * served over JSON-RPC: shapes the Fuul SDK reads, who may act for whom, closing once, redeeming
 * for real tokens, the watcher's claims and credits, and the tax gate (status 200, never 403).
 */
describe('claim checks over HTTP', () => {
  let stack: TestStack;
  let claimChain: ClaimChain;
  let project: ClaimProject;

  beforeAll(async () => {
    ({ stack, claimChain } = await startClaimStack());
    project = await claimProject(stack, claimChain);
  });
  afterAll(async () => {
    await stack?.stop();
    await claimChain?.chain.stop();
  });
  // The service's clock follows the chain's, which tests move on.
  beforeEach(async () => stack.clock.set(new Date(Number(await claimChain.chain.timestamp()) * 1000)));

  const openCheckOf = async (user: string) => (await listChecks(stack, project, user, '&status=open')).results[0]!;

  it('lists a user’s checks in the standard list and under claim_checks, with the fields the SDK reads', async () => {
    const user = randomEvmAddress();
    await earn(stack, project, user, 10_000);
    await earn(stack, project, user, 30_000);
    const listed = await listChecks(stack, project, user.toUpperCase().replace('0X', '0x'));
    expect(listed).toEqual({
      results: [
        {
          id: expect.any(String),
          currency_address: claimChain.token.toLowerCase(),
          currency_chain_id: String(claimChain.chain.chainId),
          currency_name: 'TUSD',
          currency_decimals: 6,
          reason: 'end_user_payout',
          amount: '400',
          status: 'open',
          deadline_seconds: null,
          created_at: expect.any(String),
        },
      ],
      total_results: 1,
      page: 1,
      page_size: 25,
      claim_checks: listed.results,
    });
    for (const status of ['unclaimed', 'claimed', 'expired'])
      expect((await listChecks(stack, project, user, `&status=${status}`)).total_results).toBe(0);

    const bad = await stack.api.get(`/api/v1/claim-checks?user_identifier=${user}&status=closed`, { key: project.keys.readOnly });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([expect.objectContaining({ field: 'status' })]);
    const nobody = await stack.api.get('/api/v1/claim-checks', { key: project.keys.service });
    expect(nobody.body).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('user_identifier'),
      details: [{ field: 'user_identifier', reason: 'is required with an API key' }],
    });
  });

  it('closes a check into a voucher that ClaimManager pays, the same voucher however often it is asked, and the watcher marks it claimed', async () => {
    const user = randomEvmAddress();
    await earn(stack, project, user, 123_400);
    const check = await openCheckOf(user);
    const closed = await close(stack, project, user, [check.id]);
    expect(closed.status).toBe(200);
    const now = Math.floor(stack.clock.now().getTime() / 1000);
    expect(closed.body).toEqual([
      {
        id: check.id,
        project_address: claimChain.projectAccount.address.toLowerCase(),
        to: user,
        currency: claimChain.token.toLowerCase(),
        currency_type: 1,
        amount: '1234',
        reason: 1,
        token_id: '0',
        chain_id: claimChain.chain.chainId,
        deadline: now + TTL_SECONDS,
        proof: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        signatures: [expect.stringMatching(/^0x[0-9a-f]{130}$/), expect.stringMatching(/^0x[0-9a-f]{130}$/)],
        claim_manager: claimChain.manager.toLowerCase(),
      },
    ]);
    // 200 concurrent closes of the same check: the same voucher, every time.
    const again = await Promise.all(Array.from({ length: 200 }, () => close(stack, project, user, [check.id])));
    expect(new Set(again.map((response) => `${response.status} ${JSON.stringify(response.body)}`))).toEqual(
      new Set([`200 ${JSON.stringify(closed.body)}`]),
    );
    expect((await stack.db.query('SELECT count(*)::int AS n FROM claim.vouchers WHERE claim_check_id = $1', [check.id])).rows[0].n).toBe(1);

    const claimable = await stack.api.post('/api/v1/claim-checks/claim', {
      key: project.keys.readOnly,
      body: { userIdentifier: user, userIdentifierType: 'evm_address' },
    });
    expect(claimable.body).toEqual(closed.body);
    expect((await listChecks(stack, project, user)).results[0]).toMatchObject({ status: 'unclaimed', deadline_seconds: now + TTL_SECONDS });

    const receipt = await claimChain.redeem(closed.body);
    expect(receipt.status).toBe('success');
    expect(await claimChain.balanceOf(user)).toBe(1_234n);
    await claimChain.chain.mine(CONFIRMATIONS);
    // The watcher's job scheduler reads the log after the confirmations.
    await pollUntil(async () => (await listChecks(stack, project, user, '&status=claimed')).total_results === 1, {
      timeoutMs: 15_000,
      what: 'the voucher to be marked claimed',
    });
    const block = await claimChain.chain.publicClient.getBlock({ blockNumber: receipt.blockNumber });

    const history = await stack.api.get(`/api/v1/claim-checks/claim-history?user_identifier=${user}&user_identifier_type=evm_address`, {
      key: project.keys.readOnly,
    });
    expect(history.body).toEqual({
      results: [
        {
          hash: receipt.transactionHash,
          claimed_at: new Date(Number(block.timestamp) * 1000).toISOString(),
          currency_address: claimChain.token.toLowerCase(),
          currency_chain_id: String(claimChain.chain.chainId),
          currency_name: 'TUSD',
          currency_decimals: 6,
          amount: '1234',
        },
      ],
      total_count: 1,
      next_page: null,
    });
    const totals = await stack.api.get(`/api/v1/claim-checks/totals?user_identifier=${user}`, { key: project.keys.readOnly });
    expect(totals.body).toEqual({
      claimed: [expect.objectContaining({ amount: '1234', currency_name: 'TUSD' })],
      unclaimed: [],
      pending: [],
      debt: [],
    });
    expect((await stack.api.post('/api/v1/claim-checks/claim', { key: project.keys.service, body: { userIdentifier: user } })).body).toEqual([]);
    // Closing the claimed check again still answers its voucher.
    expect((await close(stack, project, user, [check.id])).body).toEqual(closed.body);
  });

  it('credits an expired voucher back to an open check once, and refuses to close the expired check', async () => {
    const user = randomEvmAddress();
    await earn(stack, project, user, 50_000);
    const check = await openCheckOf(user);
    const [voucher] = (await close(stack, project, user, [check.id])).body as ClaimResponse[];
    await earn(stack, project, user, 20_000);

    await claimChain.chain.increaseTime(TTL_SECONDS + 60);
    await claimChain.chain.mine(CONFIRMATIONS);
    const expired = await pollUntil(async () => (await listChecks(stack, project, user, '&status=expired')).results[0], {
      timeoutMs: 15_000,
      what: 'the voucher to expire',
    });
    expect(expired).toMatchObject({ id: check.id, amount: '500' });
    const open = await openCheckOf(user);
    expect(open.amount).toBe('700');
    expect(await isRedeemed(claimChain, voucher!.proof!)).toBe(false);
    // Listed without a filter: the open check (holding the credit) and nothing expired.
    expect((await listChecks(stack, project, user)).results.map((item) => [item.status, item.amount])).toEqual([['open', '700']]);
    expect((await stack.db.query('SELECT count(*)::int AS n FROM claim.claim_check_credits WHERE expired_check_id = $1', [check.id])).rows[0].n).toBe(
      1,
    );

    const refused = await close(stack, project, user, [check.id]);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'CLAIM_CHECK_EXPIRED', details: [{ field: 'claim_check_ids[0]', reason: expect.any(String) }] });

    stack.clock.set(new Date(Number(await claimChain.chain.timestamp()) * 1000));
    const [fresh] = (await close(stack, project, user, [open.id])).body as ClaimResponse[];
    expect((await claimChain.redeem([fresh!])).status).toBe('success');
    expect(await claimChain.balanceOf(user)).toBe(700n);
  });

  it('refuses unknown, foreign and too many ids, and bodies it cannot read, closing nothing', async () => {
    const user = randomEvmAddress();
    await earn(stack, project, user, 10_000);
    const check = await openCheckOf(user);
    const other = await claimProject(stack, claimChain);

    const foreign = await close(stack, other, user, [check.id], other.keys.service);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ code: 'CLAIM_CHECK_NOT_FOUND', details: [{ field: 'claim_check_ids[0]' }] });
    expect((await close(stack, project, randomEvmAddress(), [check.id])).status).toBe(404);
    const tooMany = await close(
      stack,
      project,
      user,
      Array.from({ length: 101 }, () => check.id),
    );
    expect(tooMany.status).toBe(413);
    expect(tooMany.body.code).toBe('TOO_MANY_CLAIM_CHECKS');
    const empty = await close(stack, project, user, []);
    expect(empty.status).toBe(400);
    const disagree = await stack.api.post('/api/v1/claim-checks/close', {
      key: project.keys.service,
      body: { userIdentifier: user, user_identifier: randomEvmAddress(), claim_check_ids: [check.id] },
    });
    expect(disagree.status).toBe(400);
    expect(disagree.body.details).toEqual([{ field: 'user_identifier', reason: 'differs from userIdentifier' }]);
    const unknownField = await stack.api.post('/api/v1/claim-checks/close', {
      key: project.keys.service,
      body: { userIdentifier: user, claim_check_ids: [check.id], amount: '1' },
    });
    expect(unknownField.status).toBe(400);
    expect((await openCheckOf(user)).id).toBe(check.id);
  });

  it('lets read_only keys read and list claimable vouchers but not close; admin keys neither', async () => {
    const user = randomEvmAddress();
    await earn(stack, project, user, 10_000);
    const check = await openCheckOf(user);
    expect((await close(stack, project, user, [check.id], project.keys.readOnly)).body).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect((await close(stack, project, user, [check.id], project.keys.admin)).status).toBe(403);
    expect((await stack.api.get(`/api/v1/claim-checks?user_identifier=${user}`, { key: project.keys.admin })).status).toBe(403);
    expect((await stack.api.post('/api/v1/claim-checks/claim', { key: project.keys.readOnly, body: { userIdentifier: user } })).status).toBe(200);
    expect((await openCheckOf(user)).id).toBe(check.id);
  });

  it('lets a wallet session act for its own wallet in the project named by project_id, and for nobody else', async () => {
    const wallet = await newWallet();
    await earn(stack, project, wallet.address, 10_000);
    const token = await signIn(stack, wallet);
    const base = `/api/v1/claim-checks?project_id=${project.id}`;

    const own = await stack.api.get(base, { key: token });
    expect(own.status).toBe(200);
    expect(own.body.results).toEqual([expect.objectContaining({ status: 'open', amount: '100' })]);
    expect((await stack.api.get(`${base}&user_identifier=${wallet.checksumAddress}`, { key: token })).status).toBe(200);

    const someoneElse = await stack.api.get(`${base}&user_identifier=${randomEvmAddress()}`, { key: token });
    expect(someoneElse.body).toMatchObject({ status: 403, code: 'FORBIDDEN', message: expect.stringContaining('its own wallet') });
    const noProject = await stack.api.get('/api/v1/claim-checks', { key: token });
    expect(noProject.body).toMatchObject({ status: 400, details: [{ field: 'project_id', reason: 'is required with a wallet session token' }] });
    const unknownProject = await stack.api.get('/api/v1/claim-checks?project_id=6f1c2a9e-3b7d-4e58-9a0c-2d4b6e8f1a3c', { key: token });
    expect(unknownProject.body).toMatchObject({ status: 404, code: 'PROJECT_NOT_FOUND' });
    // An API key naming another project in project_id learns nothing of it.
    const keyElsewhere = await stack.api.get(
      `/api/v1/claim-checks?project_id=6f1c2a9e-3b7d-4e58-9a0c-2d4b6e8f1a3c&user_identifier=${wallet.address}`,
      { key: project.keys.service },
    );
    expect(keyElsewhere.body).toMatchObject({ status: 404, code: 'PROJECT_NOT_FOUND' });

    const closed = await stack.api.post(`/api/v1/claim-checks/close?project_id=${project.id}`, {
      key: token,
      body: { claim_check_ids: [own.body.results[0].id] },
    });
    expect(closed.status).toBe(200);
    expect(closed.body[0]).toMatchObject({ to: wallet.address, amount: '100', proof: expect.any(String) });
    expect((await stack.api.post(`/api/v1/claim-checks/claim?project_id=${project.id}`, { key: token, body: {} })).body).toEqual(closed.body);
    expect((await stack.api.get(`/api/v1/claim-checks/totals?project_id=${project.id}`, { key: token })).body.unclaimed).toEqual([
      expect.objectContaining({ amount: '100' }),
    ]);
    expect((await stack.api.get(`/api/v1/claim-checks/claim-history?project_id=${project.id}`, { key: token })).body).toEqual({
      results: [],
      total_count: 0,
      next_page: null,
    });
  });

  describe('the tax gate (specification §8.1): 200 with restricted rows, never 403', () => {
    it('restricts an affiliate’s checks until its tax form is approved, never its referred user’s, and again when its W-8 expires', async () => {
      const gated = await claimProject(stack, claimChain);
      const patched = await stack.api.patch(adminPaths(gated, '0x').settings, { key: gated.keys.admin, body: { require_tax_info: true } });
      expect(patched.status).toBe(200);
      const affiliateWallet = await newWallet();
      const affiliate = await newAffiliate(stack, gated, affiliateWallet.address);
      const user = randomEvmAddress();
      await earn(stack, gated, user, 10_000, affiliate.code);

      const listed = await listChecks(stack, gated, affiliate.identifier);
      expect(listed.results).toHaveLength(1);
      const item = listed.results[0]!;
      expect(item).toMatchObject({
        reason: 'affiliate_payout',
        amount: '1000',
        status: 'open',
        restriction_message: expect.stringContaining('submit your tax form'),
      });
      expect('deadline_seconds' in item).toBe(false);

      const restricted = await close(stack, gated, affiliate.identifier, [item.id]);
      expect(restricted.status).toBe(200);
      expect(restricted.body).toEqual([
        {
          id: item.id,
          project_address: claimChain.projectAccount.address.toLowerCase(),
          to: affiliate.identifier,
          currency: claimChain.token.toLowerCase(),
          currency_type: 1,
          amount: '1000',
          reason: 0,
          token_id: '0',
          chain_id: claimChain.chain.chainId,
          restriction_message: expect.stringContaining('submit your tax form'),
        },
      ]);
      expect((await listChecks(stack, gated, affiliate.identifier)).results[0]).toMatchObject({ status: 'open' });
      // The referred user's end-user check is never gated.
      const userCheck = (await listChecks(stack, gated, user)).results[0]!;
      expect(userCheck).toMatchObject({ reason: 'end_user_payout', deadline_seconds: null });
      expect((await close(stack, gated, user, [userCheck.id])).body[0]).toMatchObject({ proof: expect.any(String) });

      // The affiliate submits a W-8BEN in the portal; approved, the same check closes normally.
      const portal = await signedInAffiliate(stack, gated, affiliateWallet);
      expect((await portal.submit(w8ben({ signature_date: '2026-11-20' }))).status).toBe(201);
      expect((await listChecks(stack, gated, affiliate.identifier)).results[0]!.restriction_message).toContain('being reviewed');
      const approval = await stack.api.post(adminPaths(gated, affiliate.identifier).approve, { key: gated.keys.admin });
      expect(approval.status).toBe(200);
      const signed = await close(stack, gated, affiliate.identifier, [item.id]);
      expect(signed.body[0]).toMatchObject({ deadline: expect.any(Number), proof: expect.any(String), signatures: expect.any(Array) });
      expect(signed.body[0].restriction_message).toBeUndefined();
      const claimable = await stack.api.post('/api/v1/claim-checks/claim', {
        key: gated.keys.service,
        body: { userIdentifier: affiliate.identifier },
      });
      expect(claimable.body).toEqual(signed.body);

      // Three years after its approval the W-8 has expired: the same voucher is withheld again, in /claim and in the list.
      const threeYearsOn = new Date(approval.body.approved_at);
      threeYearsOn.setUTCFullYear(threeYearsOn.getUTCFullYear() + 3);
      expect(approval.body.expires_at).toBe(threeYearsOn.toISOString());
      stack.clock.set(approval.body.expires_at);
      expect((await stack.api.get(adminPaths(gated, affiliate.identifier).taxStatus, { key: gated.keys.admin })).body.status).toBe('expired');
      const again = await close(stack, gated, affiliate.identifier, [item.id]);
      expect(again.status).toBe(200);
      expect(again.body[0]).toMatchObject({ id: item.id, restriction_message: expect.stringContaining('renewed tax form') });
      for (const field of ['deadline', 'proof', 'signatures']) expect(field in again.body[0]).toBe(false);
      const relisted = (await listChecks(stack, gated, affiliate.identifier)).results[0]!;
      expect(relisted).toMatchObject({ status: 'unclaimed', restriction_message: expect.stringContaining('renewed') });
      expect('deadline_seconds' in relisted).toBe(false);
    });
  });
});
