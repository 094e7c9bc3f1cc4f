import { status as GrpcStatus } from '@grpc/grpc-js';
import { type ReviewRule, ReviewStatus } from '../../gen/referral/claim/v1/enums';
import { FormType, type RecordStatus } from '../../gen/referral/tax/v1/enums';
import { createSegment, evmAddress, useStackWithProject } from '../helpers/fixtures';
import { grpcRefusal, type ServiceClients, serviceClients } from '../helpers/rpc';

/**
 * proto3 lets every message field be absent on the wire. Each service's gRPC layer resolves that
 * once (services/rules/fields.ts): a field the contract requires and a caller leaves out is
 * INVALID_ARGUMENT naming it, and nothing is written. The gateway always sends them; these calls
 * go to the services directly.
 */
describe('services refuse a request without a required field', () => {
  const { stack, project } = useStackWithProject();
  let clients: ServiceClients;
  let segmentId: string;
  const user = { identifier: evmAddress(1), identifierType: 'evm_address' };

  beforeAll(async () => {
    clients = serviceClients(stack);
    segmentId = (await createSegment(stack, project)).id;
  });
  afterAll(() => clients.close());

  /** The project's rows of a table (badges belong to it through their segment): the worker's stack holds other files' projects. */
  const rows = async (table: string) => {
    const scoped =
      table === 'audience.badges'
        ? 'SELECT count(*)::int AS n FROM audience.badges b JOIN audience.segments s ON s.id = b.segment_id WHERE s.project_id = $1'
        : `SELECT count(*)::int AS n FROM ${table} WHERE project_id = $1`;
    return (await stack.db.query(scoped, [project.id])).rows[0].n as number;
  };

  const form = {
    formType: FormType.W9,
    legalName: 'Ada Lovelace',
    country: 'US',
    signatureName: 'Ada Lovelace',
    signatureDate: '2026-11-20',
  };

  it.each([
    ['SubmitTaxInfo without user', () => clients.tax.submitTaxInfo({ projectId: project.id, form }), 'user'],
    ['SubmitTaxInfo without form', () => clients.tax.submitTaxInfo({ projectId: project.id, user }), 'form'],
    ['GetTaxStatus without user', () => clients.tax.getTaxStatus({ projectId: project.id }), 'user'],
    ['ApproveTaxInfo without actor', () => clients.tax.approveTaxInfo({ projectId: project.id, user }), 'actor.api_key_id'],
    [
      'RevokeTaxInfo with an empty actor',
      () => clients.tax.revokeTaxInfo({ projectId: project.id, user, actor: { apiKeyId: '' }, reason: 'no' }),
      'actor.api_key_id',
    ],
    ['GetTaxInfoUnmasked without actor', () => clients.tax.getTaxInfoUnmasked({ projectId: project.id, user }), 'actor.api_key_id'],
    ['AddEntry without user', () => clients.audience.addEntry({ projectId: project.id, segmentId }), 'user'],
    ['CreateBadge without badge', () => clients.audience.createBadge({ projectId: project.id, segmentId }), 'badge'],
    ['CreateAffiliate without user', () => clients.agency.createAffiliate({ projectId: project.id, name: 'Alice', code: 'alice_code' }), 'user'],
    ['FlagAffiliate without user', () => clients.agency.flagAffiliate({ projectId: project.id, reason: 'odd' }), 'user'],
    ['UnflagAffiliate without user', () => clients.agency.unflagAffiliate({ projectId: project.id }), 'user'],
    ['AddAffiliateCode without user', () => clients.agency.addAffiliateCode({ projectId: project.id, code: 'alice_code' }), 'user'],
    ['UpdateAffiliateCode without user', () => clients.agency.updateAffiliateCode({ projectId: project.id, code: 'alice_code' }), 'user'],
    ['SetCodeRebateRate without user', () => clients.agency.setCodeRebateRate({ projectId: project.id, code: 'alice_code' }), 'user'],
    ['GetAffiliateClicks without user', () => clients.agency.getAffiliateClicks({ projectId: project.id }), 'user'],
    ['GetAffiliateFigures without user', () => clients.agency.getAffiliateFigures({ projectId: project.id }), 'user'],
    ['GetReferralTree without user', () => clients.agency.getReferralTree({ projectId: project.id }), 'user'],
    ['SumUserPayouts without user', () => clients.claim.sumUserPayouts({ projectId: project.id, family: 0 }), 'user'],
    ['ListReferredUserPayouts without affiliate', () => clients.claim.listReferredUserPayouts({ projectId: project.id }), 'affiliate'],
    [
      'GetAffiliateLeaderboard without metric',
      () => clients.agency.getAffiliateLeaderboard({ projectId: project.id, metric: 0, audience: 1 }),
      'metric',
    ],
    [
      'GetAffiliateLeaderboard without audience',
      () => clients.agency.getAffiliateLeaderboard({ projectId: project.id, metric: 1, audience: 0 }),
      'audience',
    ],
    ['CreateReferral without user', () => clients.agency.createReferral({ projectId: project.id, code: 'alice_code' }), 'user'],
    ['ResolveAttribution without at', () => clients.agency.resolveAttribution({ projectId: project.id, user }), 'at'],
    ['GenerateInviteCodes without user', () => clients.agency.generateInviteCodes({ projectId: project.id, quantity: 1 }), 'user'],
    ['ListInviteCodes without user', () => clients.agency.listInviteCodes({ projectId: project.id }), 'user'],
    [
      'EndReferral without referrer',
      () => clients.agency.endReferral({ projectId: project.id, user, code: 'alice_code', byUser: false }),
      'referrer',
    ],
    [
      'GetUserAudiences with a lookup without user',
      () => clients.audience.getUserAudiences({ lookups: [{ projectId: project.id, user }, { projectId: project.id }] }),
      'lookups[1].user',
    ],
  ] as const)('refuses %s, naming %s', async (_name, call, field) => {
    const error = await grpcRefusal(call());
    expect(error).toMatchObject({
      grpcStatus: GrpcStatus.INVALID_ARGUMENT,
      code: 'VALIDATION_FAILED',
      details: [{ field, reason: expect.stringContaining('required') }],
    });
  });

  it('refuses a review rule this build does not know, naming it', async () => {
    const error = await grpcRefusal(
      clients.claim.listConversionReviews({ projectId: project.id, rule: 42 as ReviewRule, status: ReviewStatus.UNSPECIFIED }),
    );
    expect(error).toMatchObject({ grpcStatus: GrpcStatus.INVALID_ARGUMENT, details: [{ field: 'rule' }] });
  });

  it('refuses a list filter this build does not know, naming it', async () => {
    // A value a newer client knows and this build does not (it arrives as the bare number).
    const error = await grpcRefusal(clients.tax.listTaxSubmissions({ projectId: project.id, status: 42 as RecordStatus }));
    expect(error).toMatchObject({
      grpcStatus: GrpcStatus.INVALID_ARGUMENT,
      details: [{ field: 'status', reason: expect.stringContaining('submitted') }],
    });
  });

  it('wrote nothing for any of them', async () => {
    expect(await rows('tax.tax_records')).toBe(0);
    expect(await rows('tax.tax_audit_log')).toBe(0);
    expect(await rows('audience.entries')).toBe(0);
    expect(await rows('audience.badges')).toBe(0);
    expect(await rows('agency.affiliates')).toBe(0);
    expect(await rows('agency.affiliate_codes')).toBe(0);
  });
});
