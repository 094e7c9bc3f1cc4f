import { AgencyServiceClient } from '../gen/referral/agency/v1/agency';
import { AudienceServiceClient, type UserAudience } from '../gen/referral/audience/v1/audience';
import { HealthCheckResponse_ServingStatus, HealthClient } from '../gen/grpc/health/v1/health';
import { ClaimServiceClient } from '../gen/referral/claim/v1/claim';
import { TaxServiceClient } from '../gen/referral/tax/v1/tax';
import { WebhooksServiceClient } from '../gen/referral/webhooks/v1/webhooks';
import { createGrpcClient, type GrpcClient } from '../services/platform/grpc/client';
import type { Batcher } from '../services/platform/batcher';
import { CATALOG, SERVICE_CATALOG } from '../services/platform/service-catalog';
import type { GatewayConfig } from './config';
import { createUserAudienceLoader, type UserAudienceKey } from './user-audience-loader';

/** The gateway reaches services only through these generated clients. */
export interface ServiceClients {
  audience: GrpcClient<AudienceServiceClient>['call'];
  /** The user lookup, coalesced: use this rather than audience.getUserAudiences. */
  userAudiences: Batcher<UserAudienceKey, UserAudience[]>;
  tax: GrpcClient<TaxServiceClient>['call'];
  agency: GrpcClient<AgencyServiceClient>['call'];
  claim: GrpcClient<ClaimServiceClient>['call'];
  webhooks: GrpcClient<WebhooksServiceClient>['call'];
  /** One health check per service, for /readyz. */
  health: Array<{ service: string; check(): Promise<boolean> }>;
  close(): void;
}

const HEALTH_TIMEOUT_MS = 1_000;

export function createServiceClients(config: GatewayConfig): ServiceClients {
  const audience = createGrpcClient(AudienceServiceClient, config[SERVICE_CATALOG.audience.addressVariable], config.GRPC_TIMEOUT_MS);
  const tax = createGrpcClient(TaxServiceClient, config[SERVICE_CATALOG.tax.addressVariable], config.GRPC_TIMEOUT_MS);
  const agency = createGrpcClient(AgencyServiceClient, config[SERVICE_CATALOG.agency.addressVariable], config.GRPC_TIMEOUT_MS);
  const claim = createGrpcClient(ClaimServiceClient, config[SERVICE_CATALOG.claim.addressVariable], config.GRPC_TIMEOUT_MS);
  const webhooks = createGrpcClient(WebhooksServiceClient, config[SERVICE_CATALOG.webhooks.addressVariable], config.GRPC_TIMEOUT_MS);
  // Every service of the catalog, whether or not a route calls it yet.
  const healthClients = CATALOG.map((entry) => ({
    service: entry.name,
    name: entry.grpcService,
    client: createGrpcClient(HealthClient, config[entry.addressVariable], HEALTH_TIMEOUT_MS),
  }));
  return {
    audience: audience.call,
    userAudiences: createUserAudienceLoader(audience.call),
    tax: tax.call,
    agency: agency.call,
    claim: claim.call,
    webhooks: webhooks.call,
    health: healthClients.map(({ service, name, client }) => ({
      service,
      check: async () => {
        const response = await client.call.check({ service: name }).catch(() => undefined);
        return response?.status === HealthCheckResponse_ServingStatus.SERVING;
      },
    })),
    close: () => {
      audience.close();
      tax.close();
      agency.close();
      claim.close();
      webhooks.close();
      for (const { client } of healthClients) client.close();
    },
  };
}
