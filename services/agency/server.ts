import { AudienceServiceClient } from '../../gen/referral/audience/v1/audience';
import { ClaimServiceClient } from '../../gen/referral/claim/v1/claim';
import { createGrpcClient } from '../common/grpc/client';
import { registerConsumer, startOutboxRelay } from '../common/outbox/runtime';
import type { ServiceRuntime } from '../common/service-runtime';
import type { AgencyConfig } from './config';
import { buildAgencyDomain } from './composition';
import type { AgencyDatabase } from './database';
import { createAgencyGrpcService } from './grpc/agency.grpc';
import { GrpcAudienceDirectory } from './grpc/audience-directory';
import { GrpcPaidConversionSource } from './grpc/claim-conversions';
import { affiliateMetrics } from './jobs/affiliate-metrics.consumer';
import { audienceMemberships } from './jobs/audience-memberships.consumer';
import { segmentTiers } from './jobs/segment-tiers.consumer';
import { taxStatuses } from './jobs/tax-statuses.consumer';

/** The composition root (see manifest.ts): the domain (composition.ts), its events and its gRPC service. */
export async function composeAgencyService(runtime: ServiceRuntime<AgencyDatabase>, config: AgencyConfig) {
  const { db, clock, logger } = runtime;
  const audience = createGrpcClient(AudienceServiceClient, config.AUDIENCE_GRPC_ADDR, config.GRPC_TIMEOUT_MS);
  runtime.closeOnStop(() => audience.close());
  const claim = createGrpcClient(ClaimServiceClient, config.CLAIM_GRPC_ADDR, config.GRPC_TIMEOUT_MS);
  runtime.closeOnStop(() => claim.close());
  const outbox = startOutboxRelay(runtime, config);
  const domain = buildAgencyDomain({
    db,
    clock,
    logger,
    audience: new GrpcAudienceDirectory(audience.call),
    outbox,
    paidConversions: new GrpcPaidConversionSource(claim.call),
  });
  registerConsumer(runtime, audienceMemberships);
  registerConsumer(runtime, segmentTiers);
  registerConsumer(runtime, affiliateMetrics);
  registerConsumer(runtime, taxStatuses);
  return createAgencyGrpcService(domain, logger);
}
