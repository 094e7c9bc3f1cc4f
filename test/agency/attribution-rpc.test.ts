import { status as GrpcStatus } from '@grpc/grpc-js';
import { AffiliateStatus, AttributionOutcome } from '../../gen/referral/agency/v1/enums';
import { randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { grpcRefusal, type ServiceClients, serviceClients } from '../helpers/rpc';
import type { TestStack } from '../helpers/stack';

/**
 * ResolveAttribution over gRPC, as the claim service calls it: the message it answers for each
 * outcome (the timeline rules are tested on the domain in test/medium/agency/attribution.test.ts).
 */
describe('ResolveAttribution over gRPC', () => {
  let stack: TestStack;
  let project: TestProject;
  let clients: ServiceClients;
  const affiliate = randomEvmAddress();
  const referred = randomEvmAddress();
  // Bob referred Alice's own wallet on Nov 23: Bob is level 2 of Alice's conversions from then on.
  const bob = randomEvmAddress();
  let affiliateId: string;
  let bobId: string;

  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    clients = serviceClients(stack);
    stack.clock.set('2026-11-21T12:00:00.000Z');
    const created = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
      key: project.keys.admin,
      body: { identifier: affiliate, identifier_type: 'evm_address', name: 'Alice', code: 'alice_code' },
    });
    affiliateId = created.body.id;
    stack.clock.set('2026-11-22T00:00:00.000Z');
    await stack.api.post('/api/v1/referrals', {
      key: project.keys.service,
      body: { user_identifier: referred, user_identifier_type: 'evm_address', code: 'alice_code' },
    });
    stack.clock.set('2026-11-23T00:00:00.000Z');
    const createdBob = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
      key: project.keys.admin,
      body: { identifier: bob, identifier_type: 'evm_address', name: 'Bob', code: 'bob_code' },
    });
    bobId = createdBob.body.id;
    await stack.api.post('/api/v1/referrals', {
      key: project.keys.service,
      body: { user_identifier: affiliate, user_identifier_type: 'evm_address', code: 'bob_code' },
    });
    stack.clock.set('2026-12-01T00:00:00.000Z');
    await stack.api.post(`/api/v1/projects/${project.id}/affiliates/${affiliate}/suspend`, { key: project.keys.admin, body: { reason: 'review' } });
  });
  afterAll(async () => {
    clients.close();
    await stack.stop();
  });

  const user = (identifier: string) => ({ identifier, identifierType: 'evm_address' });
  const ref = () => ({ id: affiliateId, identifier: affiliate, identifierType: 'evm_address' });

  it('answers an attributed conversion with the affiliate, its code, the referral moment and its status then', async () => {
    expect(
      await clients.agency.resolveAttribution({ projectId: project.id, user: user(referred), at: new Date('2026-11-25T00:00:00.000Z') }),
    ).toEqual({
      outcome: AttributionOutcome.ATTRIBUTED,
      affiliate: ref(),
      code: 'alice_code',
      referredAt: new Date('2026-11-22T00:00:00.000Z'),
      affiliateStatus: AffiliateStatus.ACTIVE,
      spreadBps: 0,
      affiliateFlagged: false,
      userRebateRateBps: 0,
      ancestors: [{ level: 2, affiliate: { id: bobId, identifier: bob, identifierType: 'evm_address' } }],
    });
    // Before Bob referred Alice, her conversions had no level 2.
    const before = await clients.agency.resolveAttribution({ projectId: project.id, user: user(referred), at: new Date('2026-11-22T12:00:00.000Z') });
    expect(before.outcome).toBe(AttributionOutcome.ATTRIBUTED);
    expect(before.ancestors).toEqual([]);
  });

  it('says AFFILIATE_SUSPENDED, still naming who referred, for a conversion while suspended', async () => {
    expect(
      await clients.agency.resolveAttribution({ projectId: project.id, user: user(referred), at: new Date('2026-12-02T00:00:00.000Z') }),
    ).toEqual({
      outcome: AttributionOutcome.AFFILIATE_SUSPENDED,
      affiliate: ref(),
      code: 'alice_code',
      referredAt: new Date('2026-11-22T00:00:00.000Z'),
      affiliateStatus: AffiliateStatus.SUSPENDED,
      spreadBps: 0,
      affiliateFlagged: false,
      userRebateRateBps: 0,
      // Nobody earns from a conversion of a suspended affiliate: no upline either.
      ancestors: [],
    });
  });

  it('answers NOT_REFERRED with nothing else set for a user nobody had referred', async () => {
    expect(
      await clients.agency.resolveAttribution({ projectId: project.id, user: user(randomEvmAddress()), at: new Date('2026-11-25T00:00:00.000Z') }),
    ).toEqual({
      outcome: AttributionOutcome.NOT_REFERRED,
      affiliateStatus: AffiliateStatus.UNSPECIFIED,
      spreadBps: 0,
      affiliateFlagged: false,
      userRebateRateBps: 0,
      ancestors: [],
    });
  });

  it('answers a batch one result per item in order, an invalid item with its own error', async () => {
    const { results } = await clients.agency.batchResolveAttribution({
      projectId: project.id,
      items: [
        { user: user(referred), at: new Date('2026-11-25T00:00:00.000Z') },
        { user: user('0xnope'), at: new Date('2026-11-25T00:00:00.000Z') },
        { user: user(referred.toUpperCase().replace('0X', '0x')), at: new Date('2026-11-25T00:00:00.000Z') },
        { user: user(referred), at: new Date('2026-12-02T00:00:00.000Z') },
        { user: user(referred) },
      ],
    });
    expect(results.map((result) => result.error?.code ?? AttributionOutcome[result.outcome])).toEqual([
      'ATTRIBUTED',
      'VALIDATION_FAILED',
      'NON_CANONICAL_ID',
      'AFFILIATE_SUSPENDED',
      'VALIDATION_FAILED',
    ]);
    expect(results[1]!.error).toEqual({
      code: 'VALIDATION_FAILED',
      message: expect.any(String),
      details: [{ field: 'items[1].user.identifier', reason: expect.any(String) }],
    });
    expect(results[2]!.error?.details).toEqual([{ field: 'items[2].user.identifier', reason: expect.stringContaining('canonical') }]);
  });

  it('refuses over HTTP a referral that would close a cycle: 409 REFERRAL_CYCLE, nothing written', async () => {
    // Carol, referred by Bob: Bob's wallet cannot be referred by Carol (nor by Alice, suspended anyway).
    await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
      key: project.keys.admin,
      body: { identifier: randomEvmAddress(), identifier_type: 'evm_address', name: 'Carol', code: 'carol_code' },
    });
    const carol = (await stack.api.get(`/api/v1/projects/${project.id}/affiliates?q=Carol`, { key: project.keys.admin })).body.results[0];
    await stack.api.post('/api/v1/referrals', {
      key: project.keys.service,
      body: { user_identifier: carol.identifier, user_identifier_type: 'evm_address', code: 'bob_code' },
    });
    const refused = await stack.api.post('/api/v1/referrals', {
      key: project.keys.service,
      body: { user_identifier: bob, user_identifier_type: 'evm_address', code: 'carol_code' },
    });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ status: 409, code: 'REFERRAL_CYCLE', message: expect.stringContaining('cycle'), details: [] });
    const referrer = await clients.agency.getReferrer({ projectId: project.id, user: user(bob) });
    expect(referrer.referral).toBeUndefined();
  });

  it('refuses a single lookup without its moment or user, and a batch past 1,000 items', async () => {
    expect(await grpcRefusal(clients.agency.resolveAttribution({ projectId: project.id, user: user(referred) }))).toMatchObject({
      grpcStatus: GrpcStatus.INVALID_ARGUMENT,
      details: [{ field: 'at', reason: expect.stringContaining('required') }],
    });
    expect(await grpcRefusal(clients.agency.resolveAttribution({ projectId: project.id, at: new Date() }))).toMatchObject({
      grpcStatus: GrpcStatus.INVALID_ARGUMENT,
      details: [{ field: 'user', reason: 'is required' }],
    });
    const items = Array.from({ length: 1_001 }, () => ({ user: user(referred), at: new Date() }));
    expect(await grpcRefusal(clients.agency.batchResolveAttribution({ projectId: project.id, items }))).toMatchObject({
      grpcStatus: GrpcStatus.INVALID_ARGUMENT,
      code: 'TOO_MANY_ITEMS',
    });
  });

  it('answers NOT_FOUND for a project id that is no UUID', async () => {
    expect(await grpcRefusal(clients.agency.resolveAttribution({ projectId: 'nope', user: user(referred), at: new Date() }))).toMatchObject({
      grpcStatus: GrpcStatus.NOT_FOUND,
      code: 'PROJECT_NOT_FOUND',
    });
  });
});
