import { registerConsumer, startOutboxRelay } from '../platform/outbox/runtime';
import type { ServiceRuntime } from '../platform/service-runtime';
import type { AudienceConfig } from './config';
import { buildAudienceDomain } from './composition';
import type { AudienceDatabase } from './database';
import { createAudienceGrpcService } from './grpc/audience.grpc';
import { affiliateMemberships } from './jobs/affiliate-memberships.consumer';
import { applicationApprovals } from './jobs/application-approved.consumer';
import { applyEntryBatch, applyEntryBatchJob } from './jobs/apply-entry-batch.job';
import { conditionInputs } from './jobs/condition-inputs.consumer';
import { userEventCounts } from './jobs/user-event-counts.consumer';
import { entryBatchRelay } from './jobs/entry-batch-relay';
import { BullEvaluationScheduler, evaluateSegment, evaluateSegmentJob } from './jobs/evaluate-segment.job';
import { evaluationRelay } from './jobs/evaluation-relay';
import { BullEntryBatchScheduler } from './jobs/entry-batch-scheduler';

/** The composition root (see manifest.ts): the domain (composition.ts), its jobs and its gRPC service. */
export async function composeAudienceService(runtime: ServiceRuntime<AudienceDatabase>, config: AudienceConfig) {
  const { db, queues, relay, clock, logger } = runtime;
  // Listening before the first wait, so no completion event is missed.
  await queues.queueEvents(applyEntryBatchJob.queue).waitUntilReady();

  const outbox = startOutboxRelay(runtime, config);
  const domain = buildAudienceDomain({
    db,
    clock,
    logger,
    scheduler: new BullEntryBatchScheduler(queues),
    evaluationScheduler: new BullEvaluationScheduler(queues),
    outbox,
    matchingDebounceMs: config.MATCHING_DEBOUNCE_MS,
  });
  // Matches pending users after commits, at start-up and on the relay's passes; stops with the relay, before the connections close.
  relay.participate(domain.matching);

  runtime.process(applyEntryBatchJob, applyEntryBatch(domain.batches), config.BATCH_WORKER_CONCURRENCY);
  relay.register(entryBatchRelay(domain.batches));
  runtime.process(evaluateSegmentJob, evaluateSegment(domain.evaluations), config.EVALUATION_WORKER_CONCURRENCY);
  relay.register(evaluationRelay(domain.evaluations));
  registerConsumer(runtime, applicationApprovals);
  registerConsumer(runtime, affiliateMemberships);
  registerConsumer(runtime, conditionInputs, undefined, async () => domain.matching.wake());
  registerConsumer(runtime, userEventCounts, undefined, async () => domain.matching.wake());

  return createAudienceGrpcService(domain, logger);
}
