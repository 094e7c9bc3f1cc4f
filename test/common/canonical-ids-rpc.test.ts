import { status as GrpcStatus } from '@grpc/grpc-js';
import { EffectiveTaxStatus, FormType, TaxClassification, TinType } from '../../gen/referral/tax/v1/enums';
import { createSegment, mixedCase, useStackWithProject } from '../helpers/fixtures';
import { grpcRefusal, type ServiceClients, serviceClients } from '../helpers/rpc';

/**
 * Defence in depth behind the gateway: a service refuses an id or a user spelled otherwise than
 * canonically (INVALID_ARGUMENT, NON_CANONICAL_ID) instead of storing it, or sealing it into a
 * tax record's associated data. The gateway never sends one; these calls go to the services directly.
 */
describe('services refuse non-canonical ids over gRPC', () => {
  const { stack, project } = useStackWithProject();
  let clients: ServiceClients;
  let segmentId: string;
  const evm = (identifier: string) => ({ identifier, identifierType: 'evm_address' });
  /** Lowercase addresses with letters in them, so that mixedCase() changes them. */
  const evmAddress = (n: number) => `0xabcdef${n.toString(16).padStart(34, '0')}`;

  beforeAll(async () => {
    clients = serviceClients(stack);
    segmentId = (await createSegment(stack, project)).id;
  });
  afterAll(() => clients.close());

  const w9 = {
    formType: FormType.W9,
    legalName: 'Ada Lovelace',
    country: 'US',
    taxIdNumber: '123-45-6789',
    tinType: TinType.SSN,
    taxClassification: TaxClassification.INDIVIDUAL,
    address: { line1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62701', country: 'US' },
    signatureName: 'Ada Lovelace',
    signatureDate: '2026-11-20',
  };

  it('the tax service refuses an uppercase project id and stores nothing', async () => {
    const error = await grpcRefusal(clients.tax.submitTaxInfo({ projectId: project.id.toUpperCase(), user: evm(evmAddress(1)), form: w9 }));
    expect(error).toMatchObject({
      grpcStatus: GrpcStatus.INVALID_ARGUMENT,
      code: 'NON_CANONICAL_ID',
      details: [{ field: 'project_id', reason: expect.stringContaining('lowercase') }],
    });
    const { rows } = await stack.db.query('SELECT count(*)::int AS n FROM tax.tax_records WHERE project_id = $1', [project.id]);
    expect(rows[0].n).toBe(0);
  });

  it('the tax service refuses a user identifier not in the canonical form of its type, in one call or in a batch', async () => {
    const one = await grpcRefusal(clients.tax.getTaxStatus({ projectId: project.id, user: evm(mixedCase(evmAddress(2))) }));
    expect(one).toMatchObject({ grpcStatus: GrpcStatus.INVALID_ARGUMENT, code: 'NON_CANONICAL_ID', details: [{ field: 'user.identifier' }] });
    const batch = await grpcRefusal(
      clients.tax.batchGetTaxStatuses({
        projectId: project.id,
        users: [evm(evmAddress(3)), { identifier: 'Bob@Example.com', identifierType: 'email' }],
      }),
    );
    expect(batch.details).toEqual([{ field: 'users[1].identifier', reason: expect.any(String) }]);
    const fine = await clients.tax.batchGetTaxStatuses({ projectId: project.id, users: [evm(evmAddress(3))] });
    expect(fine.results.map((result) => result.status)).toEqual([EffectiveTaxStatus.NOT_REQUIRED]);
  });

  it('the audience service refuses uppercase project, segment and job ids and non-canonical entries, and stores nothing', async () => {
    const created = await grpcRefusal(clients.audience.createSegment({ projectId: project.id.toUpperCase(), name: 'Shouted' }));
    expect(created).toMatchObject({ code: 'NON_CANONICAL_ID', details: [{ field: 'project_id' }] });
    const got = await grpcRefusal(clients.audience.getSegment({ projectId: project.id, segmentId: segmentId.toUpperCase() }));
    expect(got).toMatchObject({ code: 'NON_CANONICAL_ID', details: [{ field: 'segment_id' }] });
    const job = await grpcRefusal(
      clients.audience.getEntryBatch({ projectId: project.id, segmentId, jobId: '0000000A-0000-4000-8000-000000000000', waitMs: 0 }),
    );
    expect(job).toMatchObject({ code: 'NON_CANONICAL_ID', details: [{ field: 'job_id' }] });
    const batch = await grpcRefusal(
      clients.audience.submitEntryBatch({
        projectId: project.id,
        segmentId,
        entries: [evm(evmAddress(4)), evm(mixedCase(evmAddress(5)))],
        waitMs: 0,
      }),
    );
    expect(batch).toMatchObject({ grpcStatus: GrpcStatus.INVALID_ARGUMENT, code: 'NON_CANONICAL_ID', details: [{ field: 'entries[1].identifier' }] });
    const removed = await grpcRefusal(clients.audience.removeEntry({ projectId: project.id, segmentId, identifier: mixedCase(evmAddress(4)) }));
    expect(removed).toMatchObject({ code: 'NON_CANONICAL_ID', details: [{ field: 'identifier' }] });

    const { rows } = await stack.db.query(
      `SELECT (SELECT count(*) FROM audience.segments WHERE project_id = $1)::int AS segments,
              (SELECT count(*) FROM audience.entry_batches WHERE project_id = $1)::int AS batches`,
      [project.id],
    );
    expect(rows[0]).toEqual({ segments: 1, batches: 0 });
  });

  it('a non-canonical lookup fails alone: the other lookups of the call are answered', async () => {
    await clients.audience.addEntry({ projectId: project.id, segmentId, user: evm(evmAddress(6)) });
    const response = await clients.audience.getUserAudiences({
      lookups: [
        { projectId: project.id, user: evm(mixedCase(evmAddress(6))) },
        { projectId: project.id, user: evm(evmAddress(6)) },
        { projectId: project.id.toUpperCase(), user: evm(evmAddress(6)) },
      ],
    });
    expect(response.results[0]?.error).toMatchObject({ code: 'NON_CANONICAL_ID', details: [{ field: 'user.identifier' }] });
    expect(response.results[1]?.error).toBeUndefined();
    expect(response.results[1]?.audiences.map((found) => found.id)).toEqual([segmentId]);
    expect(response.results[2]?.error).toMatchObject({ code: 'NON_CANONICAL_ID', details: [{ field: 'project_id' }] });
  });
  it('the agency refuses tracking events naming a user otherwise than canonically, and stores none of the request', async () => {
    const event = (trackingId: string, identifier?: string) => ({
      name: 'connect_wallet',
      trackingId,
      user: identifier === undefined ? undefined : evm(identifier),
      signatureVerified: false,
      argsJson: '{}',
      metadataJson: JSON.stringify({ tracking_id: trackingId }),
    });
    const refused = await grpcRefusal(
      clients.agency.recordTrackingEvents({
        projectId: project.id,
        events: [event('canon-1', evmAddress(7)), event('canon-2', mixedCase(evmAddress(8)))],
      }),
    );
    expect(refused).toMatchObject({
      grpcStatus: GrpcStatus.INVALID_ARGUMENT,
      code: 'NON_CANONICAL_ID',
      details: [{ field: 'events[1].user.identifier' }],
    });
    const upper = await grpcRefusal(clients.agency.recordTrackingEvents({ projectId: project.id.toUpperCase(), events: [event('canon-3')] }));
    expect(upper).toMatchObject({ code: 'NON_CANONICAL_ID', details: [{ field: 'project_id' }] });
    const { rows } = await stack.db.query(`SELECT count(*)::int AS n FROM agency.tracking_events WHERE tracking_id LIKE 'canon-%'`);
    expect(rows[0].n).toBe(0);
  });
});
