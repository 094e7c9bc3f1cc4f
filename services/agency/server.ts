import { registerConsumer, startOutboxRelay } from '../platform/outbox/runtime';
import type { ServiceRuntime } from '../platform/service-runtime';
import type { AgencyConfig } from './config';
import { buildAgencyDomain } from './composition';
import type { AgencyDatabase } from './database';
import { createAgencyGrpcService } from './grpc/agency.grpc';
import { connectAgencyDependencies } from './grpc/outbound-clients';
import { affiliateMetrics } from './jobs/affiliate-metrics.consumer';
import { audienceMemberships } from './jobs/audience-memberships.consumer';
import { segmentTiers } from './jobs/segment-tiers.consumer';
import { processTrackingBatch, processTrackingBatchJob, trackingBatchRelay } from './jobs/process-tracking-batch.job';
import { taxStatuses } from './jobs/tax-statuses.consumer';
import { BatchJobScheduler } from '../platform/batch-job-scheduler';
import {
  maintainTrackingEventPartitions,
  TRACKING_EVENT_PARTITIONS_EVERY_MS,
  TRACKING_EVENT_PARTITIONS_SCHEDULER_ID,
  trackingEventPartitionsJob,
} from './jobs/tracking-event-partitions.job';

/** Tracking batches processed at once by one agency process (each is one transaction). */
const TRACKING_BATCH_CONCURRENCY = 4;

/** The composition root (see manifest.ts): the domain (composition.ts), its events and its gRPC service. */
export async function composeAgencyService(runtime: ServiceRuntime<AgencyDatabase>, config: AgencyConfig) {
  const { db, clock, logger, relay, queues } = runtime;
  const dependencies = connectAgencyDependencies(config);
  runtime.closeOnStop(() => dependencies.close());
  const outbox = startOutboxRelay(runtime, config);
  const domain = buildAgencyDomain({
    db,
    clock,
    logger,
    audience: dependencies.audience,
    outbox,
    paidConversions: dependencies.paidConversions,
    trackingEventRetentionDays: config.TRACKING_EVENT_RETENTION_DAYS,
    trackingBatches: new BatchJobScheduler(queues, processTrackingBatchJob, logger, 'tracking events'),
  });
  registerConsumer(runtime, audienceMemberships);
  registerConsumer(runtime, segmentTiers);
  registerConsumer(runtime, affiliateMetrics);
  registerConsumer(runtime, taxStatuses);
  runtime.process(processTrackingBatchJob, processTrackingBatch(domain.tracking), TRACKING_BATCH_CONCURRENCY);
  relay.register(trackingBatchRelay(domain.tracking));
  // The tracking events' partitions: made at start (so this month's events never wait in the default
  // partition for the first run), then daily by a schedule the relay keeps in place.
  await domain.trackingEvents.maintainPartitions().catch((error: unknown) => {
    logger.warn({ err: error }, 'tracking event partitions could not be maintained at start; the daily job tries again');
  });
  runtime.process(trackingEventPartitionsJob, maintainTrackingEventPartitions(domain.trackingEvents));
  relay.repeat({
    job: trackingEventPartitionsJob,
    schedulerId: TRACKING_EVENT_PARTITIONS_SCHEDULER_ID,
    everyMs: TRACKING_EVENT_PARTITIONS_EVERY_MS,
    payload: {},
  });
  return createAgencyGrpcService(domain, logger);
}
