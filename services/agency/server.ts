import { AudienceServiceClient } from '../../gen/referral/audience/v1/audience';
import { createGrpcClient } from '../common/grpc/client';
import { registerConsumer, startOutboxRelay } from '../common/outbox/runtime';
import type { ServiceRuntime } from '../common/service-runtime';
import type { AgencyConfig } from './config';
import { buildAgencyDomain } from './composition';
import type { AgencyDatabase } from './database';
import { createAgencyGrpcService } from './grpc/agency.grpc';
import { GrpcAudienceDirectory } from './grpc/audience-directory';
import { audienceMemberships } from './jobs/audience-memberships.consumer';

/** The composition root (see manifest.ts): the domain (composition.ts), its events and its gRPC service. */
export async function composeAgencyService(runtime: ServiceRuntime<AgencyDatabase>, config: AgencyConfig) {
  const { db, clock, logger } = runtime;
  const audience = createGrpcClient(AudienceServiceClient, config.AUDIENCE_GRPC_ADDR, config.GRPC_TIMEOUT_MS);
  runtime.closeOnStop(() => audience.close());
  const outbox = startOutboxRelay(runtime, config);
  const domain = buildAgencyDomain({ db, clock, logger, audience: new GrpcAudienceDirectory(audience.call), outbox });
  registerConsumer(runtime, audienceMemberships);
  return createAgencyGrpcService(domain, logger);
}
