import type { ServiceRuntime } from '../common/service-runtime';
import type { AgencyConfig } from './config';
import { buildAgencyDomain } from './composition';
import type { AgencyDatabase } from './database';
import { createAgencyGrpcService } from './grpc/agency.grpc';

/** The composition root (see manifest.ts): the domain (composition.ts) and its gRPC service. */
export async function composeAgencyService(runtime: ServiceRuntime<AgencyDatabase>, _config: AgencyConfig) {
  const { db, clock, logger } = runtime;
  const domain = buildAgencyDomain({ db, clock, logger });
  return createAgencyGrpcService(domain, logger);
}
