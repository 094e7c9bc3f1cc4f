import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { EffectiveTaxStatus, FormType } from '../../gen/referral/tax/v1/enums';
import { TaxServiceClient } from '../../gen/referral/tax/v1/tax';
import { createGrpcClient, type GrpcClient } from '../../services/platform/grpc/client';
import { createProject, type TestProject } from '../helpers/fixtures';
import { standardStatusOf } from '../helpers/grpc-status';
import { grpcRefusal } from '../helpers/rpc';
import { startStack, type TestStack } from '../helpers/stack';
import { adminPaths, type Affiliate, requireTaxInfo, signedInAffiliate, w8ben, w9 } from './tax-forms';

/** GetTaxStatus and BatchGetTaxStatuses: what the claim gate and the affiliate list will call. */
describe('tax status over gRPC (referral.tax.v1.TaxService)', () => {
  let stack: TestStack;
  let tax: GrpcClient<TaxServiceClient>;
  let project: TestProject;
  let approved: Affiliate;
  let revoked: Affiliate;
  let submitted: Affiliate;
  const never = '0x00000000000000000000000000000000000000bb';
  const user = (identifier: string) => ({ identifier, identifierType: 'evm_address' });

  beforeAll(async () => {
    stack = await startStack();
    tax = createGrpcClient(TaxServiceClient, stack.grpcAddresses.tax, 5_000);
    project = await createProject(stack);
    await requireTaxInfo(stack, project);
    approved = await signedInAffiliate(stack, project);
    revoked = await signedInAffiliate(stack, project);
    submitted = await signedInAffiliate(stack, project);
    await approved.submit(w8ben());
    await stack.api.post(adminPaths(project, approved.wallet.address).approve, { key: project.keys.admin });
    await revoked.submit(w9());
    await stack.api.post(adminPaths(project, revoked.wallet.address).revoke, { key: project.keys.admin, body: { reason: 'unreadable' } });
    await submitted.submit(w9());
  });
  afterAll(async () => {
    tax.close();
    await stack.stop();
  });

  it('answers one user’s effective status', async () => {
    const status = await tax.call.getTaxStatus({ projectId: project.id, user: user(approved.wallet.address) });
    expect(status).toEqual({
      user: user(approved.wallet.address),
      status: EffectiveTaxStatus.APPROVED,
      formType: FormType.W8BEN,
      submittedAt: new Date('2026-11-21T12:00:00.000Z'),
      approvedAt: new Date('2026-11-21T12:00:00.000Z'),
      expiresAt: new Date('2029-11-21T12:00:00.000Z'),
      revokedReason: undefined,
    });
  });

  it('answers a batch in the order asked, duplicates and unknown users included', async () => {
    const response = await tax.call.batchGetTaxStatuses({
      projectId: project.id,
      users: [user(submitted.wallet.address), user(never), user(revoked.wallet.address), user(approved.wallet.address), user(never)],
    });
    expect(response.results.map((result) => [result.user?.identifier, result.status, result.revokedReason])).toEqual([
      [submitted.wallet.address, EffectiveTaxStatus.SUBMITTED, undefined],
      [never, EffectiveTaxStatus.NOT_SUBMITTED, undefined],
      [revoked.wallet.address, EffectiveTaxStatus.REVOKED, 'unreadable'],
      [approved.wallet.address, EffectiveTaxStatus.APPROVED, undefined],
      [never, EffectiveTaxStatus.NOT_SUBMITTED, undefined],
    ]);
  });

  it('answers each user of a batch exactly as GetTaxStatus answers that user alone (form, timestamps, reason)', async () => {
    const users = [user(approved.wallet.address), user(revoked.wallet.address), user(submitted.wallet.address), user(never)];
    const batch = await tax.call.batchGetTaxStatuses({ projectId: project.id, users });
    const alone = await Promise.all(users.map((one) => tax.call.getTaxStatus({ projectId: project.id, user: one })));
    expect(batch.results).toEqual(alone);
    expect(batch.results[0]).toMatchObject({ approvedAt: new Date('2026-11-21T12:00:00.000Z'), expiresAt: new Date('2029-11-21T12:00:00.000Z') });
  });

  it('answers not_required for everyone in a project that does not require tax info', async () => {
    const relaxed = await createProject(stack);
    const affiliate = await signedInAffiliate(stack, relaxed);
    await affiliate.submit(w9());
    const response = await tax.call.batchGetTaxStatuses({ projectId: relaxed.id, users: [user(affiliate.wallet.address), user(never)] });
    expect(response.results.map((result) => [result.status, result.formType])).toEqual([
      [EffectiveTaxStatus.NOT_REQUIRED, FormType.W9],
      [EffectiveTaxStatus.NOT_REQUIRED, undefined],
    ]);
  });

  it('answers an empty batch with no results', async () => {
    expect(await tax.call.batchGetTaxStatuses({ projectId: project.id, users: [] })).toEqual({ results: [] });
  });

  it('refuses invalid identifiers with INVALID_ARGUMENT naming each one', async () => {
    const remote = await grpcRefusal(
      tax.call.batchGetTaxStatuses({ projectId: project.id, users: [user(never), user('0x12'), { identifier: 'x', identifierType: 'phone' }] }),
    );
    expect(remote.grpcStatus).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(remote.details.map((detail) => detail.field)).toEqual(['users[1].identifier', 'users[2].identifier_type']);
  });

  it('says why in the standard google.rpc.Status trailer (ErrorInfo, BadRequest), which any gRPC client can decode', async () => {
    const error = (await tax.call
      .batchGetTaxStatuses({ projectId: project.id, users: [user(never), user('0x12'), { identifier: 'x', identifierType: 'phone' }] })
      .catch((caught: unknown) => caught)) as ServiceError;
    expect(standardStatusOf(error)).toEqual({
      code: GrpcStatus.INVALID_ARGUMENT,
      message: error.details,
      typeUrls: ['type.googleapis.com/google.rpc.ErrorInfo', 'type.googleapis.com/google.rpc.BadRequest'],
      errorInfo: [{ reason: 'VALIDATION_FAILED', domain: 'referral', metadata: {} }],
      badRequest: [
        {
          fieldViolations: [
            { field: 'users[1].identifier', description: expect.stringMatching(/.+/) },
            { field: 'users[2].identifier_type', description: expect.stringMatching(/.+/) },
          ],
        },
      ],
      retryInfo: [],
      customTrailers: [],
    });
  });

  it('carries only ErrorInfo for a refusal that names no field', async () => {
    const error = await tax.call.getTaxStatus({ projectId: 'nope', user: user(never) }).catch((caught: unknown) => caught);
    expect(standardStatusOf(error)).toMatchObject({
      code: GrpcStatus.NOT_FOUND,
      typeUrls: ['type.googleapis.com/google.rpc.ErrorInfo'],
      errorInfo: [{ domain: 'referral', reason: expect.stringMatching(/^[A-Z][A-Z0-9_]+$/) }],
    });
  });

  it('refuses more than 1,000 users per batch', async () => {
    const users = Array.from({ length: 1_001 }, (_unused, index) => user(`0x${index.toString(16).padStart(40, '0')}`));
    const remote = await grpcRefusal(tax.call.batchGetTaxStatuses({ projectId: project.id, users }));
    expect(remote.grpcStatus).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(remote.details).toEqual([{ field: 'users', reason: expect.stringContaining('1000') }]);
  });

  it('answers NOT_FOUND for a project id that is no UUID', async () => {
    expect((await grpcRefusal(tax.call.getTaxStatus({ projectId: 'nope', user: user(never) }))).grpcStatus).toBe(GrpcStatus.NOT_FOUND);
  });
});
