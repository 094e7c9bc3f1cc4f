import { AgencyServiceClient } from '../../../gen/referral/agency/v1/agency';
import { AudienceServiceClient } from '../../../gen/referral/audience/v1/audience';
import { TaxServiceClient } from '../../../gen/referral/tax/v1/tax';
import { createGrpcClient } from '../../platform/grpc/client';
import { SERVICE_CATALOG } from '../../platform/service-catalog';
import type { ClaimConfig } from '../config';
import { AgencyAttributionSource } from './agency-attribution.client';
import { AudienceAllowlistClient } from './audience-allowlist.client';
import { TaxStatusClient } from './tax-status.client';

type OutboundConfig = Pick<ClaimConfig, 'GRPC_TIMEOUT_MS' | (typeof SERVICE_CATALOG)['agency' | 'audience' | 'tax']['addressVariable']>;

/**
 * The claim service's synchronous dependencies, in one place: a gRPC client of each service it
 * calls, at its configured address, every call with the configured deadline (GRPC_TIMEOUT_MS),
 * wrapped in the adapter the domain knows it by.
 */
export function connectClaimDependencies(config: OutboundConfig) {
  const agency = createGrpcClient(AgencyServiceClient, config[SERVICE_CATALOG.agency.addressVariable], config.GRPC_TIMEOUT_MS);
  const audience = createGrpcClient(AudienceServiceClient, config[SERVICE_CATALOG.audience.addressVariable], config.GRPC_TIMEOUT_MS);
  const tax = createGrpcClient(TaxServiceClient, config[SERVICE_CATALOG.tax.addressVariable], config.GRPC_TIMEOUT_MS);
  return {
    /** Who referred whom (CreateReferral, BatchResolveAttribution). */
    attribution: new AgencyAttributionSource(agency.call),
    /** Payout terms' allowlists (CheckMemberships, GetSegment). */
    allowlists: new AudienceAllowlistClient(audience.call),
    /** The tax gate (BatchGetTaxStatuses). */
    taxStatus: new TaxStatusClient(tax.call),
    close(): void {
      agency.close();
      audience.close();
      tax.close();
    },
  };
}
