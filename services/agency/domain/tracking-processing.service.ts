import type { Clock } from '../../platform/clock';
import type { Logger } from '../../platform/logger';
import type { OutboxWaker } from '../../platform/outbox/relay';
import { requireProjectId, type UserInput } from '../../rules/subject';
import type { Page } from '../../rules/pagination';
import type { PagedRecords } from '../../platform/db/paged-list';
import { normalizeIdentifier } from '../../rules/identifiers';
import type { BatchApplyResult, TrackingEventRecord, TrackingRepository } from '../repositories/tracking.repository';

/** What a given-up batch says (the internal reason goes to the log). */
const FAILED_REASON = 'the batch could not be processed after several attempts; its events are stored, and nothing they cause was applied';

export interface TrackingEventListFilter {
  trackingId?: string;
  name?: string;
  user?: UserInput;
}

/**
 * What stored tracking events cause (docs/affiliates.md, "Clicks and referrals from tracking events"):
 * clicks of codes, links of tracking ids to wallets, referrals through the referral rule, and the per-user
 * counts other services read. A batch is applied by a job (../jobs/process-tracking-batch.job.ts) once,
 * whatever is retried.
 */
export class TrackingProcessingService {
  constructor(
    private readonly tracking: TrackingRepository,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly outbox: OutboxWaker,
  ) {}

  /** The job's step: idempotent, a batch processed already changes nothing. */
  async apply(batchId: string): Promise<BatchApplyResult> {
    const result = await this.tracking.apply(batchId, this.clock.now());
    if (result.applied) {
      if (result.wroteEvents) this.outbox.wake();
      this.logger.info({ batch_id: batchId, events: result.events, clicks: result.clicks, referrals: result.referrals }, 'tracking batch processed');
    }
    return result;
  }

  /** Batches neither processed nor given up, oldest first: the relay makes sure each has a job. */
  pending(limit: number): Promise<string[]> {
    return this.tracking.findPending(limit);
  }

  /** The batch's job kept failing: it is given up, with a reason a person can act on (the internal one is logged). */
  async fail(batchId: string, reason: string): Promise<void> {
    this.logger.error({ batch_id: batchId, reason }, 'tracking batch given up');
    await this.tracking.fail(batchId, FAILED_REASON, this.clock.now());
  }

  async list(projectIdInput: string, filter: TrackingEventListFilter, page: Page): Promise<PagedRecords<TrackingEventRecord>> {
    const projectId = requireProjectId(projectIdInput);
    const user = filter.user ? normalizeIdentifier(filter.user.identifier, filter.user.identifierType, 'user') : undefined;
    return this.tracking.list(projectId, { trackingId: filter.trackingId, name: filter.name, user }, page);
  }
}
