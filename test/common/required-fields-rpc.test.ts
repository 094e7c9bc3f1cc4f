import { status as GrpcStatus } from '@grpc/grpc-js';
import { AudienceServiceClient } from '../../gen/referral/audience/v1/audience';
import { FormType, type RecordStatus } from '../../gen/referral/tax/v1/enums';
import { TaxServiceClient } from '../../gen/referral/tax/v1/tax';
import { createGrpcClient, type GrpcClient } from '../../services/common/grpc/client';
import { isServiceError, readGrpcError } from '../../services/common/grpc/errors';
import { createProject, createSegment, evmAddress, type TestProject } from '../helpers/fixtures';
import { startStack, type TestStack } from '../helpers/stack';

/**
 * proto3 lets every message field be absent on the wire. Each service's gRPC layer resolves that
 * once (services/common/fields.ts): a field the contract requires and a caller leaves out is
 * INVALID_ARGUMENT naming it, and nothing is written. The gateway always sends them; these calls
 * go to the services directly.
 */
describe('services refuse a request without a required field', () => {
  let stack: TestStack;
  let tax: GrpcClient<TaxServiceClient>;
  let audience: GrpcClient<AudienceServiceClient>;
  let project: TestProject;
  let segmentId: string;
  const user = { identifier: evmAddress(1), identifierType: 'evm_address' };

  beforeAll(async () => {
    stack = await startStack();
    tax = createGrpcClient(TaxServiceClient, stack.taxAddress, 5_000);
    audience = createGrpcClient(AudienceServiceClient, stack.audienceAddress, 5_000);
    project = await createProject(stack);
    segmentId = (await createSegment(stack, project)).id;
  });
  afterAll(async () => {
    tax.close();
    audience.close();
    await stack.stop();
  });

  async function refusal(call: Promise<unknown>) {
    const error = await call.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    if (!isServiceError(error)) throw new Error(`expected a gRPC error, got ${String(error)}`);
    return readGrpcError(error);
  }
  const rows = async (table: string) => (await stack.db.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number;

  const form = {
    formType: FormType.W9,
    legalName: 'Ada Lovelace',
    country: 'US',
    signatureName: 'Ada Lovelace',
    signatureDate: '2026-11-20',
  };

  it.each([
    ['SubmitTaxInfo without user', () => tax.call.submitTaxInfo({ projectId: project.id, form }), 'user'],
    ['SubmitTaxInfo without form', () => tax.call.submitTaxInfo({ projectId: project.id, user }), 'form'],
    ['GetTaxStatus without user', () => tax.call.getTaxStatus({ projectId: project.id }), 'user'],
    ['ApproveTaxInfo without actor', () => tax.call.approveTaxInfo({ projectId: project.id, user }), 'actor.api_key_id'],
    ['RevokeTaxInfo with an empty actor', () => tax.call.revokeTaxInfo({ projectId: project.id, user, actor: { apiKeyId: '' }, reason: 'no' }), 'actor.api_key_id'],
    ['GetTaxInfoUnmasked without actor', () => tax.call.getTaxInfoUnmasked({ projectId: project.id, user }), 'actor.api_key_id'],
    ['AddEntry without user', () => audience.call.addEntry({ projectId: project.id, segmentId }), 'user'],
    ['CreateBadge without badge', () => audience.call.createBadge({ projectId: project.id, segmentId }), 'badge'],
    [
      'GetUserAudiences with a lookup without user',
      () => audience.call.getUserAudiences({ lookups: [{ projectId: project.id, user }, { projectId: project.id }] }),
      'lookups[1].user',
    ],
  ] as const)('refuses %s, naming %s', async (_name, call, field) => {
    const error = await refusal(call());
    expect(error).toMatchObject({ grpcStatus: GrpcStatus.INVALID_ARGUMENT, code: 'VALIDATION_FAILED', details: [{ field, reason: expect.stringContaining('required') }] });
  });

  it('refuses a list filter this build does not know, naming it', async () => {
    // A value a newer client knows and this build does not (it arrives as the bare number).
    const error = await refusal(tax.call.listTaxSubmissions({ projectId: project.id, status: 42 as RecordStatus }));
    expect(error).toMatchObject({ grpcStatus: GrpcStatus.INVALID_ARGUMENT, details: [{ field: 'status', reason: expect.stringContaining('submitted') }] });
  });

  it('wrote nothing for any of them', async () => {
    expect(await rows('tax.tax_records')).toBe(0);
    expect(await rows('tax.tax_audit_log')).toBe(0);
    expect(await rows('audience.entries')).toBe(0);
    expect(await rows('audience.badges')).toBe(0);
  });
});
