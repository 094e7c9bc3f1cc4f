import { randomUUID } from 'node:crypto';
import type { Clock } from '../../platform/clock';
import type { Logger } from '../../platform/logger';
import { TRACKING_EVENT_LIMITS } from '../../rules/contract-limits';
import { type FieldViolation, invalidFields, MAX_LISTED_VIOLATIONS } from '../../rules/errors';
import { checkIdentifier, type UserIdentifier } from '../../rules/identifiers';
import { requireProjectId } from '../../rules/subject';
import type { UserInput } from '../../rules/subject';
import {
  type MonthPartition,
  monthPartition,
  type RecordedTrackingEvents,
  type TrackingEventRepository,
  type TrackingEventRow,
} from '../repositories/tracking-event.repository';

/** One event as a caller sends it (the gateway checked the SDK's shape; this checks the rules again). */
export interface TrackingEventInput {
  name: string;
  trackingId: string;
  user: UserInput | undefined;
  signatureVerified: boolean;
  referrer: string | undefined;
  dedupId: string | undefined;
  argsJson: string;
  metadataJson: string;
}

/** Queues a stored batch's processing (the relay queues what this could not). */
export interface TrackingBatchScheduler {
  schedule(batchId: string): Promise<void>;
}

/** What the partition maintenance did. */
export interface PartitionMaintenance {
  created: Array<{ name: string; moved: number }>;
  dropped: string[];
}

const DAY_MS = 86_400_000;

/** `\u0000` in JSON text, preceded by an even number of backslashes (so an escape, not an escaped backslash and text). */
const NUL_ESCAPE = /(^|[^\\])(\\\\)*\\u0000/;

/** The text, checked to be one JSON object jsonb can hold, as it is stored (the statement reads it as is: no second serialisation). */
function jsonObjectText(text: string, field: string, found: FieldViolation[]): string {
  if (text === '') return '{}';
  if (Buffer.byteLength(text) > TRACKING_EVENT_LIMITS.objectBytes) {
    found.push({ field, reason: `must be at most ${TRACKING_EVENT_LIMITS.objectBytes} bytes of JSON` });
    return '{}';
  }
  // PostgreSQL's jsonb holds no NUL character (an escape \u0000 not itself escaped).
  if (NUL_ESCAPE.test(text)) {
    found.push({ field, reason: 'must not contain the NUL character' });
    return '{}';
  }
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return text;
  } catch {
    // reported below
  }
  found.push({ field, reason: 'must be a JSON object' });
  return '{}';
}

function length(value: string, max: number, field: string, found: FieldViolation[]): void {
  if (value.length < 1 || value.length > max) found.push({ field, reason: `must be 1 to ${max} characters` });
}

/**
 * Tracking events of the @fuul/sdk: stored as received, one batch per request, in one transaction
 * (what the processing job works from), a dedup_id accepted once per project; and the monthly
 * partitions of the events' table, made ahead and dropped past the retention.
 */
export class TrackingEventService {
  constructor(
    private readonly events: TrackingEventRepository,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly retentionDays: number,
    private readonly scheduler: TrackingBatchScheduler,
  ) {}

  /** Stores the events (1 to 1,000) as one batch; a dedup_id accepted before is a duplicate, not stored. */
  async record(projectIdInput: string, inputs: readonly TrackingEventInput[]): Promise<RecordedTrackingEvents> {
    const projectId = requireProjectId(projectIdInput);
    if (inputs.length === 0 || inputs.length > TRACKING_EVENT_LIMITS.maxPerBatch) {
      throw invalidFields([{ field: 'events', reason: `must hold 1 to ${TRACKING_EVENT_LIMITS.maxPerBatch} events` }]);
    }
    const found: FieldViolation[] = [];
    const rows = inputs.map((input, index): TrackingEventRow => {
      const at = `events[${index}]`;
      length(input.name, TRACKING_EVENT_LIMITS.nameLength, `${at}.name`, found);
      length(input.trackingId, TRACKING_EVENT_LIMITS.trackingIdLength, `${at}.tracking_id`, found);
      if (input.dedupId !== undefined) length(input.dedupId, TRACKING_EVENT_LIMITS.dedupIdLength, `${at}.dedup_id`, found);
      if (input.referrer !== undefined) length(input.referrer, TRACKING_EVENT_LIMITS.referrerLength, `${at}.referrer`, found);
      let user: UserIdentifier | null = null;
      if (input.user !== undefined) {
        const checked = checkIdentifier(input.user.identifier, input.user.identifierType, `${at}.user`);
        if (checked.user) user = checked.user;
        else found.push(...checked.violations);
      }
      if (input.signatureVerified && user === null) found.push({ field: `${at}.signature_verified`, reason: 'a verified event names its user' });
      return {
        id: randomUUID(),
        name: input.name,
        trackingId: input.trackingId,
        user,
        signatureVerified: input.signatureVerified,
        referrer: input.referrer ?? null,
        dedupId: input.dedupId ?? null,
        argsJson: jsonObjectText(input.argsJson, `${at}.args`, found),
        metadataJson: jsonObjectText(input.metadataJson, `${at}.metadata`, found),
      };
    });
    if (found.length > 0) throw invalidFields(found.slice(0, MAX_LISTED_VIOLATIONS));
    const recorded = await this.events.record(projectId, this.clock.now(), randomUUID(), rows);
    // Committed: its processing may start now.
    if (recorded.batchId !== null) await this.scheduler.schedule(recorded.batchId);
    return recorded;
  }

  /**
   * The partitions' upkeep, at start and daily: the partitions of the current and next UTC month and
   * of every month the default partition holds rows of (moving those rows in), and retention: the
   * partitions (and other rows) older than TRACKING_EVENT_RETENTION_DAYS dropped. Idempotent.
   */
  async maintainPartitions(): Promise<PartitionMaintenance> {
    const now = this.clock.now();
    const cutoff = new Date(now.getTime() - this.retentionDays * DAY_MS);
    const current = monthPartition(now);
    const wanted = new Map<string, MonthPartition>();
    for (const month of [...(await this.events.monthsInDefault()), current.start, current.end]) {
      const partition = monthPartition(month);
      if (partition.end.getTime() > cutoff.getTime()) wanted.set(partition.name, partition);
    }
    const created: PartitionMaintenance['created'] = [];
    for (const partition of [...wanted.values()].sort((a, b) => a.start.getTime() - b.start.getTime())) {
      const made = await this.events.ensurePartition(partition);
      if (made) created.push(made);
    }
    const dropped = await this.events.dropBefore(cutoff);
    if (created.length > 0 || dropped.length > 0) this.logger.info({ created, dropped }, 'tracking event partitions maintained');
    return { created, dropped };
  }
}
