import { randomUUID } from 'node:crypto';
import { type ClaimChain, claimProject, close, CONFIRMATIONS, earn, listChecks, startClaimStack } from '../claim/claim-check-stack';
import { createProject, createSegment, randomEvmAddress, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';
import { newWallet, signIn } from '../helpers/wallet';
import { adminPaths, requireTaxInfo, signedInAffiliate, TIN, w8ben } from '../tax/tax-forms';
import { type ReceivedDelivery, verifyStandardWebhook, WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * Every public event of README "Webhooks" produced by doing the action through the API, on the real
 * stack (with the claim service signing for, and watching, a ClaimManager on the in-process EVM),
 * delivered to a real HTTP receiver: exactly one signed delivery per event, with the documented
 * `data`. Each test has a project of its own, so an endpoint sees only the events of its test.
 */
describe('webhook events, produced through the API', () => {
  let stack: TestStack;
  let claimChain: ClaimChain;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    ({ stack, claimChain } = await startClaimStack());
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await stack?.stop();
    await claimChain?.chain.stop();
  });

  interface Endpoint {
    id: string;
    secret: string;
    path: string;
  }

  async function subscribe(project: TestProject, events: string[]): Promise<Endpoint> {
    const path = `/events-${randomUUID()}`;
    const response = await stack.api.post(`/api/v1/projects/${project.id}/webhooks`, {
      key: project.keys.admin,
      body: { url: receiver.url(path), events },
    });
    expect(response.status).toBe(201);
    return { id: response.body.id, secret: response.body.secret, path };
  }

  const deliveryLog = async (project: TestProject, endpoint: Endpoint) =>
    (await stack.api.get(`/api/v1/projects/${project.id}/webhooks/${endpoint.id}/deliveries?page_size=100`, { key: project.keys.admin })).body as {
      results: Array<{ event_id: string; event_type: string; status: string }>;
      total_results: number;
    };

  /**
   * Waits for `count` deliveries to the endpoint to be delivered, then checks there is exactly one
   * request and one log row per event, each signed with the endpoint's secret. The requests, oldest first.
   */
  async function delivered(project: TestProject, endpoint: Endpoint, count: number): Promise<ReceivedDelivery[]> {
    const log = await pollUntil(
      async () => {
        const current = await deliveryLog(project, endpoint);
        // The page and its total are two statements: a delivery row created between them is counted
        // but not listed yet, so wait for the rows themselves.
        return current.results.length >= count && current.results.every((row) => row.status === 'delivered') ? current : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 50, what: `${count} deliveries to ${endpoint.path}` },
    );
    expect(log.total_results).toBe(count);
    const requests = receiver.at(endpoint.path);
    expect(requests).toHaveLength(count);
    expect(new Set(requests.map((request) => request.headers['webhook-id']))).toEqual(new Set(log.results.map((row) => row.event_id)));
    for (const request of requests) {
      expect(verifyStandardWebhook(endpoint.secret, request.headers, request.body)).toBe(true);
      expect(request.json).toEqual({
        id: request.headers['webhook-id'],
        type: expect.any(String),
        created_at: expect.any(String),
        data: expect.any(Object),
      });
    }
    return requests;
  }

  const user = (identifier: string) => ({ identifier, identifier_type: 'evm_address' });
  const now = () => stack.clock.now().toISOString();

  it('affiliate.created: by the admin API, by the wallet itself (self-service) and by an approved application, once each', async () => {
    const project = await createProject(stack);
    const endpoint = await subscribe(project, ['affiliate.created']);

    const byAdmin = randomEvmAddress();
    const created = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
      key: project.keys.admin,
      body: { identifier: byAdmin, identifier_type: 'evm_address', name: 'Ada', region: 'gb', code: 'ADA1' },
    });
    expect(created.status).toBe(201);

    const wallet = await newWallet();
    const selfService = await stack.api.post('/api/v1/affiliates', {
      key: project.keys.service,
      body: { address: wallet.checksumAddress, code: 'SELF1', signature: await wallet.sign('I confirm that I am creating the SELF1 code') },
    });
    expect(selfService.status).toBe(201);

    const applicant = await newWallet();
    const token = await signIn(stack, applicant);
    const application = await stack.api.post(`/api/v1/projects/${project.id}/affiliate-portal/application`, {
      key: token,
      body: { name: 'Grace', code: 'GRACE1' },
    });
    expect(application.status).toBe(201);
    const segment = await createSegment(stack, project);
    const approved = await stack.api.post(`/api/v1/projects/${project.id}/applications/${application.body.id}/approve`, {
      key: project.keys.admin,
      body: { audience_id: segment.id },
    });
    expect(approved.status).toBe(200);

    const requests = await delivered(project, endpoint, 3);
    const bySource = new Map(requests.map((request) => [request.json.data.source, request.json]));
    expect(bySource.get('admin')).toMatchObject({
      type: 'affiliate.created',
      data: {
        affiliate_id: created.body.id,
        user: user(byAdmin),
        name: 'Ada',
        region: 'GB',
        codes: ['ADA1'],
        source: 'admin',
        application_id: null,
        joined_at: now(),
      },
    });
    expect(bySource.get('self_service')).toMatchObject({
      type: 'affiliate.created',
      data: {
        affiliate_id: expect.any(String),
        user: user(wallet.address),
        name: 'SELF1',
        region: null,
        codes: ['SELF1'],
        source: 'self_service',
        application_id: null,
      },
    });
    expect(bySource.get('application')).toMatchObject({
      type: 'affiliate.created',
      data: {
        affiliate_id: approved.body.affiliate_id,
        user: user(applicant.address),
        name: 'Grace',
        codes: ['GRACE1'],
        source: 'application',
        application_id: application.body.id,
      },
    });
    for (const request of requests)
      expect(Object.keys(request.json.data).sort()).toEqual([
        'affiliate_id',
        'application_id',
        'codes',
        'joined_at',
        'name',
        'region',
        'source',
        'user',
      ]);
  });

  it('application.decided: a rejection with its reason and an approval with its audience; a hold decides nothing', async () => {
    const project = await createProject(stack);
    const endpoint = await subscribe(project, ['application.decided']);
    const apply = async () => {
      const wallet = await newWallet();
      const response = await stack.api.post(`/api/v1/projects/${project.id}/affiliate-portal/application`, {
        key: await signIn(stack, wallet),
        body: { name: 'Applicant' },
      });
      expect(response.status).toBe(201);
      return { wallet, id: response.body.id as string };
    };
    const applications = `/api/v1/projects/${project.id}/applications`;
    const rejected = await apply();
    expect((await stack.api.post(`${applications}/${rejected.id}/hold`, { key: project.keys.admin, body: { note: 'later' } })).status).toBe(200);
    expect(
      (await stack.api.post(`${applications}/${rejected.id}/reject`, { key: project.keys.admin, body: { reason: 'Traffic too low' } })).status,
    ).toBe(200);
    const accepted = await apply();
    const segment = await createSegment(stack, project);
    const approval = await stack.api.post(`${applications}/${accepted.id}/approve`, { key: project.keys.admin, body: { audience_id: segment.id } });
    expect(approval.status).toBe(200);

    const requests = await delivered(project, endpoint, 2);
    const byDecision = new Map(requests.map((request) => [request.json.data.decision, request.json]));
    expect(byDecision.get('rejected')).toEqual({
      id: expect.any(String),
      type: 'application.decided',
      created_at: now(),
      data: {
        application_id: rejected.id,
        user: user(rejected.wallet.address),
        decision: 'rejected',
        reason: 'Traffic too low',
        audience_id: null,
        affiliate_id: null,
        decided_at: now(),
      },
    });
    expect(byDecision.get('approved')).toEqual({
      id: expect.any(String),
      type: 'application.decided',
      created_at: now(),
      data: {
        application_id: accepted.id,
        user: user(accepted.wallet.address),
        decision: 'approved',
        reason: null,
        audience_id: segment.id,
        affiliate_id: approval.body.affiliate_id,
        decided_at: now(),
      },
    });
  });

  it('affiliate.status_changed: suspended with its reason, then reactivated; an endpoint that never answers slows neither request nor the other endpoint', async () => {
    const project = await createProject(stack);
    const endpoint = await subscribe(project, ['affiliate.status_changed']);
    const dead = await subscribe(project, ['affiliate.status_changed']);
    receiver.plan(dead.path, ['hang']);
    const identifier = randomEvmAddress();
    const created = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
      key: project.keys.admin,
      body: { identifier, identifier_type: 'evm_address', name: 'Ada' },
    });
    expect(created.status).toBe(201);
    const affiliate = `/api/v1/projects/${project.id}/affiliates/${identifier}`;

    const suspended = await stack.api.post(`${affiliate}/suspend`, { key: project.keys.admin, body: { reason: 'Fraudulent traffic' } });
    expect(suspended.status).toBe(200);
    // The dead endpoint holds the suspension's delivery open (and every retry of it) ...
    await pollUntil(async () => receiver.at(dead.path).length >= 1, { timeoutMs: 20_000, what: 'the dead endpoint to hold a delivery' });
    // ... while the next change is answered and the live endpoint receives both.
    const reactivated = await stack.api.post(`${affiliate}/reactivate`, { key: project.keys.admin });
    expect(reactivated.status).toBe(200);
    const requests = await delivered(project, endpoint, 2);
    const deadLog = await deliveryLog(project, dead);
    expect(deadLog.results.some((row) => row.status === 'pending')).toBe(true);

    expect(requests.map((request) => request.json.data).sort((a, b) => String(a.to).localeCompare(String(b.to)))).toEqual([
      { affiliate_id: created.body.id, user: user(identifier), from: 'suspended', to: 'active', reason: null, changed_at: now() },
      { affiliate_id: created.body.id, user: user(identifier), from: 'active', to: 'suspended', reason: 'Fraudulent traffic', changed_at: now() },
    ]);
    receiver.plan(dead.path, [{ status: 200 }]);
    receiver.releaseHeld();
    await pollUntil(
      async () => ((await deliveryLog(project, dead)).results.filter((row) => row.status === 'delivered').length === 2 ? true : undefined),
      {
        timeoutMs: 30_000,
        what: 'the dead endpoint, back, to receive both',
      },
    );
  });

  it('tax_status.changed: submitted, approved, revoked — statuses and the user only, never a form field or the tax id', async () => {
    const project = await createProject(stack);
    await requireTaxInfo(stack, project);
    const endpoint = await subscribe(project, ['tax_status.changed']);
    const affiliate = await signedInAffiliate(stack, project);
    expect((await affiliate.submit(w8ben())).status).toBe(201);
    const paths = adminPaths(project, affiliate.wallet.address);
    expect((await stack.api.post(paths.approve, { key: project.keys.admin })).status).toBe(200);
    expect((await stack.api.post(paths.revoke, { key: project.keys.admin, body: { reason: 'TIN does not match' } })).status).toBe(200);

    const requests = await delivered(project, endpoint, 3);
    const changes = requests.map((request) => request.json.data);
    const expected = (from: string, to: string) => ({ project_id: project.id, user: user(affiliate.wallet.address), from, to, changed_at: now() });
    expect(changes).toEqual(
      expect.arrayContaining([expected('not_submitted', 'submitted'), expected('submitted', 'approved'), expected('approved', 'revoked')]),
    );
    for (const request of requests) {
      expect(request.json.type).toBe('tax_status.changed');
      for (const secret of [TIN.foreign, TIN.foreignStored, 'Grace Hopper', '1990-12-09', 'Berlin', 'TIN does not match'])
        expect(request.body).not.toContain(secret);
    }
  });

  it('claim_check.closed and claim_check.claimed: the close’s voucher (never its signatures) and the redeeming transaction the watcher saw', async () => {
    const project = await claimProject(stack, claimChain);
    const endpoint = await subscribe(project, ['claim_check.closed', 'claim_check.claimed']);
    stack.clock.set(new Date(Number(await claimChain.chain.timestamp()) * 1000));
    const owner = randomEvmAddress();
    await earn(stack, project, owner, 250_000);
    const check = (await listChecks(stack, project, owner, '&status=open')).results[0]!;
    const closed = await close(stack, project, owner, [check.id]);
    expect(closed.status).toBe(200);
    const [closedRequest] = await delivered(project, endpoint, 1);
    const voucher = closed.body[0];
    expect(closedRequest!.json).toEqual({
      id: expect.any(String),
      type: 'claim_check.closed',
      created_at: stack.clock.now().toISOString(),
      data: {
        user: user(owner),
        closed_at: stack.clock.now().toISOString(),
        claim_checks: [
          {
            claim_check_id: check.id,
            reason: 'end_user_payout',
            amount: '2500',
            currency_address: claimChain.token.toLowerCase(),
            currency_chain_id: claimChain.chain.chainId,
            deadline: String(voucher.deadline),
          },
        ],
      },
    });
    for (const signature of voucher.signatures) expect(closedRequest!.body).not.toContain(signature.slice(2));

    const receipt = await claimChain.redeem(closed.body);
    expect(receipt.status).toBe('success');
    await claimChain.chain.mine(CONFIRMATIONS);
    const requests = await delivered(project, endpoint, 2);
    const block = await claimChain.chain.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    expect(requests.find((request) => request.json.type === 'claim_check.claimed')!.json.data).toEqual({
      claim_check_id: check.id,
      user: user(owner),
      reason: 'end_user_payout',
      amount: '2500',
      currency_address: claimChain.token.toLowerCase(),
      currency_chain_id: claimChain.chain.chainId,
      transaction_hash: receipt.transactionHash,
      block_number: String(receipt.blockNumber),
      claimed_at: new Date(Number(block.timestamp) * 1000).toISOString(),
    });
  });

  it('conversion.processed: conversions sent through POST /api/v1/conversions/batch reach the endpoint signed, once each', async () => {
    const project = await claimProject(stack, claimChain);
    const endpoint = await subscribe(project, ['conversion.processed']);
    const users = [randomEvmAddress(), randomEvmAddress(), randomEvmAddress()];
    const ids = users.map(() => `order-${randomUUID()}`);
    const conversions = users.map((identifier, index) => ({ id: ids[index], name: 'trade', user: user(identifier), reward_base: '100000' }));
    const sent = await stack.api.post('/api/v1/conversions/batch', { key: project.keys.service, body: { conversions } });
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ accepted: 3, duplicates: 0, refused: 0 });
    // Sent again: duplicates, announced nothing more.
    expect((await stack.api.post('/api/v1/conversions/batch', { key: project.keys.service, body: { conversions } })).body).toMatchObject({
      accepted: 0,
      duplicates: 3,
    });

    const requests = await delivered(project, endpoint, 3);
    expect(requests.map((request) => request.json.data.conversion_id).sort()).toEqual([...ids].sort());
    for (const request of requests) {
      const index = ids.indexOf(request.json.data.conversion_id as string);
      expect(request.json).toMatchObject({
        type: 'conversion.processed',
        data: {
          name: 'trade',
          status: 'processed',
          user: user(users[index]!),
          affiliate: null,
          // A chain id is a JSON number in every published event, as in the API's currencies.
          currency: expect.objectContaining({ chain_id: claimChain.chain.chainId, address: claimChain.token.toLowerCase() }),
          payouts: [{ kind: 'end_user_payout', user: user(users[index]!), amount: '1000' }],
        },
      });
    }
  });
});
