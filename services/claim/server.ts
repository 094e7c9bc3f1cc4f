import { SERVICE_CATALOG } from '../common/service-catalog';
import type { ServiceRuntime } from '../common/service-runtime';
import { buildClaimDomain } from './composition';
import type { ClaimConfig } from './config';
import type { ClaimDatabase } from './database';
import type { ConversionEventSink } from './domain/payout.service';
import { createClaimGrpcService } from './grpc/claim.grpc';
import { AgencyAttributionSource } from './grpc/agency-attribution.client';
import { conversionBatchRelay } from './jobs/conversion-batch-relay';
import { BullConversionScheduler } from './jobs/conversion-scheduler';
import { payConversions, payConversionsJob } from './jobs/pay-conversions.job';

/** No events leave yet: the outbox is not wired in yet. */
const noEvents: ConversionEventSink = { append: async () => undefined, committed: () => undefined };

/** The composition root (see manifest.ts): the domain (composition.ts), the payment job and the gRPC service. */
export async function composeClaimService(runtime: ServiceRuntime<ClaimDatabase>, config: ClaimConfig) {
  const { db, queues, relay, clock, logger } = runtime;
  const attribution = new AgencyAttributionSource(config[SERVICE_CATALOG.agency.addressVariable]);
  runtime.closeOnStop(() => attribution.close());
  const domain = buildClaimDomain({
    db,
    clock,
    logger,
    scheduler: new BullConversionScheduler(queues, logger),
    attribution,
    events: noEvents,
  });

  runtime.process(payConversionsJob, payConversions(domain.payouts), config.CONVERSION_WORKER_CONCURRENCY);
  relay.register(conversionBatchRelay(domain.payouts));

  return createClaimGrpcService(domain, logger);
}
