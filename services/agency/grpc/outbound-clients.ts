import { AudienceServiceClient } from '../../../gen/referral/audience/v1/audience';
import { ClaimServiceClient } from '../../../gen/referral/claim/v1/claim';
import { createGrpcClient } from '../../platform/grpc/client';
import { SERVICE_CATALOG } from '../../platform/service-catalog';
import type { AgencyConfig } from '../config';
import { GrpcAudienceDirectory } from './audience-directory';
import { GrpcPaidConversionSource } from './claim-conversions';

type OutboundConfig = Pick<AgencyConfig, 'GRPC_TIMEOUT_MS' | (typeof SERVICE_CATALOG)['audience' | 'claim']['addressVariable']>;

/**
 * The agency service's synchronous dependencies, in one place: a gRPC client of each service it
 * calls, at its configured address, every call with the configured deadline (GRPC_TIMEOUT_MS),
 * wrapped in the adapter the domain knows it by.
 */
export function connectAgencyDependencies(config: OutboundConfig) {
  const audience = createGrpcClient(AudienceServiceClient, config[SERVICE_CATALOG.audience.addressVariable], config.GRPC_TIMEOUT_MS);
  const claim = createGrpcClient(ClaimServiceClient, config[SERVICE_CATALOG.claim.addressVariable], config.GRPC_TIMEOUT_MS);
  return {
    /** Segments and tiers (GetSegment). */
    audience: new GrpcAudienceDirectory(audience.call),
    /** Paid conversions, for rebuilding the affiliate metrics (ListPaidConversions). */
    paidConversions: new GrpcPaidConversionSource(claim.call),
    close(): void {
      audience.close();
      claim.close();
    },
  };
}
