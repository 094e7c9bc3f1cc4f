import { type ServerUnaryCall, Server, ServerCredentials, type ServiceDefinition, status as GrpcStatus } from '@grpc/grpc-js';
import { AgencyServiceService } from '../../gen/referral/agency/v1/agency';
import { AudienceServiceService } from '../../gen/referral/audience/v1/audience';
import { ClaimServiceService } from '../../gen/referral/claim/v1/claim';
import { TaxServiceService } from '../../gen/referral/tax/v1/tax';
import { agencyConfigSchema } from '../../services/agency/config';
import { connectAgencyDependencies } from '../../services/agency/grpc/outbound-clients';
import { claimConfigSchema } from '../../services/claim/config';
import { connectClaimDependencies } from '../../services/claim/grpc/outbound-clients';
import { ConfigError, loadConfig } from '../../services/platform/config';
import { UnavailableError } from '../../services/rules/errors';

/**
 * The deadline these tests configure: far below the 5 s default and the 15 s the claim service's clients used to fix,
 * and long enough for a fresh channel to connect on a loaded machine first (at 300 ms the first call's deadline once
 * passed before its connection was up, and the stalled server never saw it).
 */
const DEADLINE_MS = 1_000;

interface StalledService {
  address: string;
  /** Per call taken: how long the caller gave it, from when it was sent (the deadline the server was told). */
  allowedMs: number[];
  stop(): void;
}

/** A gRPC server of `definition` that takes every call and never answers: a stalled service, as its callers see it. */
async function stalledService(definition: ServiceDefinition): Promise<StalledService> {
  const server = new Server();
  const allowedMs: number[] = [];
  const stall = (call: ServerUnaryCall<unknown, unknown>) => {
    const deadline = call.getDeadline();
    allowedMs.push((deadline instanceof Date ? deadline.getTime() : deadline) - sentAt);
  };
  server.addService(definition, Object.fromEntries(Object.keys(definition).map((method) => [method, stall])));
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return { address: `127.0.0.1:${port}`, allowedMs, stop: () => server.forceShutdown() };
}

/** When the call under test was sent (wall clock: a gRPC deadline is the network's time, not the test clock's). */
let sentAt = 0;
async function refusal(call: () => Promise<unknown>): Promise<unknown> {
  sentAt = Date.now();
  return call().then(
    () => {
      throw new Error('the call was answered; the stalled service never answers');
    },
    (error: unknown) => error,
  );
}

const USER = { identifier: '0x00000000000000000000000000000000000000a1', identifierType: 'evm_address' as const };
const PROJECT = '00000000-0000-4000-8000-000000000001';

/** Each service's outbound gRPC clients take the deadline of its configuration (GRPC_TIMEOUT_MS), and a call past it fails as the caller maps it. */
describe('outbound gRPC calls past the configured deadline', () => {
  const stalled: StalledService[] = [];
  const stall = async (definition: ServiceDefinition) => {
    const service = await stalledService(definition);
    stalled.push(service);
    return service;
  };
  afterAll(() => {
    for (const service of stalled) service.stop();
  });

  /** The server was told the configured deadline, not a default: the call was given about DEADLINE_MS. */
  const expectConfiguredDeadline = (service: StalledService) => {
    expect(service.allowedMs.length).toBeGreaterThan(0);
    for (const allowed of service.allowedMs.splice(0)) {
      expect(allowed).toBeGreaterThan(DEADLINE_MS / 2);
      expect(allowed).toBeLessThan(DEADLINE_MS + 1_000);
    }
  };

  it('claim: the tax gate answers TAX_SERVICE_UNAVAILABLE, allowlist lookups AUDIENCE_SERVICE_UNAVAILABLE, payment-job calls fail with DEADLINE_EXCEEDED (the job retries)', async () => {
    const [agency, audience, tax] = await Promise.all([stall(AgencyServiceService), stall(AudienceServiceService), stall(TaxServiceService)]);
    const config = loadConfig(claimConfigSchema, {
      AGENCY_GRPC_ADDR: agency.address,
      AUDIENCE_GRPC_ADDR: audience.address,
      TAX_GRPC_ADDR: tax.address,
      GRPC_TIMEOUT_MS: String(DEADLINE_MS),
    });
    const dependencies = connectClaimDependencies(config);
    try {
      const gate = await refusal(() => dependencies.taxStatus.statuses(PROJECT, [USER]));
      expect(gate).toBeInstanceOf(UnavailableError);
      expect(gate).toMatchObject({ code: 'TAX_SERVICE_UNAVAILABLE' });
      expectConfiguredDeadline(tax);

      const lookup = await refusal(() => dependencies.allowlists.missing(PROJECT, ['00000000-0000-4000-8000-0000000000aa']));
      expect(lookup).toBeInstanceOf(UnavailableError);
      expect(lookup).toMatchObject({ code: 'AUDIENCE_SERVICE_UNAVAILABLE' });
      expectConfiguredDeadline(audience);

      const memberships = await refusal(() =>
        dependencies.allowlists.members(PROJECT, [{ audienceId: '00000000-0000-4000-8000-0000000000aa', user: USER }]),
      );
      expect(memberships).toMatchObject({ code: GrpcStatus.DEADLINE_EXCEEDED });
      expectConfiguredDeadline(audience);

      const attribution = await refusal(() => dependencies.attribution.resolve(PROJECT, [{ user: USER, at: new Date() }]));
      expect(attribution).toMatchObject({ code: GrpcStatus.DEADLINE_EXCEEDED });
      expectConfiguredDeadline(agency);

      // A referral code the agency did not answer for is not a code that refers nobody: the job fails and retries, it never pays as if unreferred.
      const referral = await refusal(() => dependencies.attribution.applyReferralCodes(PROJECT, [{ user: USER, code: 'ALICE' }]));
      expect(referral).toMatchObject({ code: GrpcStatus.DEADLINE_EXCEEDED });
      expectConfiguredDeadline(agency);
    } finally {
      dependencies.close();
    }
  });

  it('agency: segment lookups answer AUDIENCE_UNAVAILABLE, the metrics rebuild CLAIM_UNAVAILABLE', async () => {
    const [audience, claim] = await Promise.all([stall(AudienceServiceService), stall(ClaimServiceService)]);
    const config = loadConfig(agencyConfigSchema, {
      AUDIENCE_GRPC_ADDR: audience.address,
      CLAIM_GRPC_ADDR: claim.address,
      GRPC_TIMEOUT_MS: String(DEADLINE_MS),
    });
    const dependencies = connectAgencyDependencies(config);
    try {
      const segment = await refusal(() => dependencies.audience.segment(PROJECT, '00000000-0000-4000-8000-0000000000aa'));
      expect(segment).toBeInstanceOf(UnavailableError);
      expect(segment).toMatchObject({ code: 'AUDIENCE_UNAVAILABLE' });
      expectConfiguredDeadline(audience);

      const page = await refusal(() => dependencies.paidConversions.page(PROJECT, null, 1_000));
      expect(page).toBeInstanceOf(UnavailableError);
      expect(page).toMatchObject({ code: 'CLAIM_UNAVAILABLE' });
      expectConfiguredDeadline(claim);
    } finally {
      dependencies.close();
    }
  });

  it('refuses a deadline out of range at start-up, naming GRPC_TIMEOUT_MS', () => {
    for (const schema of [claimConfigSchema, agencyConfigSchema]) {
      for (const value of ['50', '120001', 'soon']) {
        expect(() => loadConfig(schema, { GRPC_TIMEOUT_MS: value })).toThrow(ConfigError);
        expect(() => loadConfig(schema, { GRPC_TIMEOUT_MS: value })).toThrow(/GRPC_TIMEOUT_MS/);
      }
      expect(loadConfig(schema, {}).GRPC_TIMEOUT_MS).toBe(5_000);
    }
  });
});
