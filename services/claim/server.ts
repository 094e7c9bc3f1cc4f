import type { ServiceRuntime } from '../common/service-runtime';
import { buildClaimDomain } from './composition';
import type { ClaimConfig } from './config';
import type { ClaimDatabase } from './database';
import type { AttributionSource } from './domain/attribution';
import type { ConversionEventSink } from './domain/payout.service';
import { createClaimGrpcService } from './grpc/claim.grpc';
import { conversionBatchRelay } from './jobs/conversion-batch-relay';
import { BullConversionScheduler } from './jobs/conversion-scheduler';
import { payConversions, payConversionsJob } from './jobs/pay-conversions.job';

/** Nobody is referred: the agency service is not wired in yet. */
const noReferrals: AttributionSource = {
  applyReferralCodes: async (_projectId, uses) => uses.map(() => undefined),
  resolve: async (_projectId, lookups) => lookups.map(() => null),
};

/** No events leave yet: the outbox is not wired in yet. */
const noEvents: ConversionEventSink = { append: async () => undefined, committed: () => undefined };

/** The composition root (see manifest.ts): the domain (composition.ts), the payment job and the gRPC service. */
export async function composeClaimService(runtime: ServiceRuntime<ClaimDatabase>, config: ClaimConfig) {
  const { db, queues, relay, clock, logger } = runtime;
  const domain = buildClaimDomain({
    db,
    clock,
    logger,
    scheduler: new BullConversionScheduler(queues, logger),
    attribution: noReferrals,
    events: noEvents,
  });

  runtime.process(payConversionsJob, payConversions(domain.payouts), config.CONVERSION_WORKER_CONCURRENCY);
  relay.register(conversionBatchRelay(domain.payouts));

  return createClaimGrpcService(domain, logger);
}
