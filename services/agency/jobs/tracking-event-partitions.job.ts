import { z } from 'zod';
import type { JobDefinition, JobProcessor } from '../../platform/queue';
import type { TrackingEventService } from '../domain/tracking-event.service';

/**
 * The tracking events' partitions, daily (a BullMQ job scheduler the job relay keeps in place): the
 * current and next month made ahead, rows of the default partition moved into their month, months
 * past TRACKING_EVENT_RETENTION_DAYS dropped. "Now" is the service clock's when it runs; idempotent.
 */
export const trackingEventPartitionsJob: JobDefinition<Record<string, never>> = {
  queue: 'agency-tracking-event-partitions',
  data: z.object({}).strict(),
};

export const TRACKING_EVENT_PARTITIONS_SCHEDULER_ID = 'tracking-event-partitions';

/** Once a day. */
export const TRACKING_EVENT_PARTITIONS_EVERY_MS = 86_400_000;

export function maintainTrackingEventPartitions(events: TrackingEventService): JobProcessor<Record<string, never>> {
  return async () => {
    const { created, dropped } = await events.maintainPartitions();
    return { created: created.map((partition) => partition.name), dropped };
  };
}
