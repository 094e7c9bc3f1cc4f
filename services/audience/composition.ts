import type { Kysely } from 'kysely';
import type { Clock } from '../platform/clock';
import type { Logger } from '../platform/logger';
import type { OutboxWaker } from '../platform/outbox/relay';
import type { AudienceDatabase } from './database';
import { BadgeService } from './domain/badge.service';
import { type EntryBatchScheduler, EntryBatchService } from './domain/entry-batch.service';
import { EntryService } from './domain/entry.service';
import { PendingMatchDrainer } from './jobs/pending-match-drainer';
import { type EvaluationScheduler, SegmentEvaluationService } from './domain/segment-evaluation.service';
import { SegmentService } from './domain/segment.service';
import { UserAudienceService } from './domain/user-audience.service';
import { UserTraitService } from './domain/user-trait.service';
import { BadgeRepository } from './repositories/badge.repository';
import { EntryBatchRepository } from './repositories/entry-batch.repository';
import { EntryRepository } from './repositories/entry.repository';
import { PendingMatchRepository } from './repositories/pending-matches.repository';
import { SegmentEvaluationRepository } from './repositories/segment-evaluation.repository';
import { SegmentRepository } from './repositories/segment.repository';
import { TraitRepository } from './repositories/trait.repository';

/** The audience service's rules, each with its real repositories. */
export interface AudienceDomain {
  segments: SegmentService;
  entries: EntryService;
  batches: EntryBatchService;
  badges: BadgeService;
  userAudiences: UserAudienceService;
  evaluations: SegmentEvaluationService;
  /**
   * Incremental matching of the users pending re-matching (pending_matches): a participant of the
   * job relay (server.ts), woken after each commit that recorded users (traits here, metrics in the
   * condition-inputs consumer).
   */
  matching: PendingMatchDrainer;
  traits: UserTraitService;
}

export interface AudienceDomainDeps {
  db: Kysely<AudienceDatabase>;
  clock: Clock;
  logger: Logger;
  /** How stored batches reach the worker (BullEntryBatchScheduler over the queues in server.ts). */
  scheduler: EntryBatchScheduler;
  /** How evaluations of dynamic segments reach the worker (BullEvaluationScheduler). */
  evaluationScheduler: EvaluationScheduler;
  /** Told after each commit that wrote events (the service's outbox relay). */
  outbox: OutboxWaker;
  /** How long after a user's first unmatched change incremental matching matches it (MATCHING_DEBOUNCE_MS). */
  matchingDebounceMs: number;
}

/**
 * Plain constructors, wired once: server.ts builds the domain the gRPC service serves with this,
 * and the medium tests (test/medium/audience) build the same one over a test database.
 */
export function buildAudienceDomain(deps: AudienceDomainDeps): AudienceDomain {
  const { db, clock, logger, scheduler, evaluationScheduler, outbox } = deps;
  const segmentRepository = new SegmentRepository(db);
  const entryRepository = new EntryRepository(db);
  const evaluations = new SegmentEvaluationService(
    segmentRepository,
    new SegmentEvaluationRepository(db),
    evaluationScheduler,
    clock,
    logger,
    outbox,
  );
  const matching = new PendingMatchDrainer(evaluations, new PendingMatchRepository(db), clock, deps.matchingDebounceMs, logger);
  return {
    matching,
    evaluations,
    segments: new SegmentService(segmentRepository, clock, outbox, (segmentId, requested) => evaluations.enqueue(segmentId, requested)),
    entries: new EntryService(segmentRepository, entryRepository, clock, outbox),
    batches: new EntryBatchService(segmentRepository, new EntryBatchRepository(db), scheduler, clock, logger, outbox),
    badges: new BadgeService(segmentRepository, new BadgeRepository(db), clock),
    userAudiences: new UserAudienceService(entryRepository),
    traits: new UserTraitService(new TraitRepository(db), clock, matching),
  };
}
