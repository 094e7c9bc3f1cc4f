import { z } from 'zod';
import type { JobDefinition, JobProcessor } from '../../platform/queue';
import type { W8ExpiryService } from '../domain/w8-expiry.service';

/**
 * The W-8 expiry sweep, run by a BullMQ job scheduler that the job relay keeps in place. The job carries nothing: "now" comes from
 * the service clock when it runs, so a late or repeated run expires exactly what is due.
 */
export const expireW8FormsJob: JobDefinition<Record<string, never>> = {
  queue: 'tax-expire-w8-forms',
  data: z.object({}).strict(),
};

export const EXPIRE_W8_SCHEDULER_ID = 'expire-w8-forms';

export function expireW8Forms(expiry: W8ExpiryService): JobProcessor<Record<string, never>> {
  return async () => ({ expired: await expiry.expireDue() });
}
