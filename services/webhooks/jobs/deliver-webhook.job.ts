import { z } from 'zod';
import type { JobDefinition, JobProcessor, QueueKit } from '../../platform/queue';
import type { OutboxJobKind } from '../../platform/job-relay';
import type { DeliverySettings } from '../domain/delivery-settings';
import type { DeliveryQueue, DeliveryService } from '../domain/delivery.service';

export const DELIVER_WEBHOOK_QUEUE = 'webhooks-deliver';

export interface DeliverWebhookData {
  deliveryId: string;
}

/**
 * One job per delivery (job id = delivery id). BullMQ retries it with exponential backoff and
 * jitter, as the configuration says; the delivery row decides when to stop (attempts, 24 h window).
 */
export function deliverWebhookJob(
  settings: Pick<DeliverySettings, 'maxAttempts' | 'backoffMs'>,
): JobDefinition<DeliverWebhookData> & { jobId: (data: DeliverWebhookData) => string } {
  return {
    queue: DELIVER_WEBHOOK_QUEUE,
    data: z.object({ deliveryId: z.uuid() }),
    jobId: (data) => data.deliveryId,
    options: {
      attempts: settings.maxAttempts,
      backoff: { type: 'exponential', delay: settings.backoffMs, jitter: 0.5 },
      // The delivery row is the record; a failed job stays for the relay to find.
      removeOnComplete: true,
    },
  };
}

export class RetryDeliveryError extends Error {
  override readonly name = 'RetryDeliveryError';
}

export function deliverWebhook(deliveries: DeliveryService): JobProcessor<DeliverWebhookData> {
  return async ({ deliveryId }) => {
    const result = await deliveries.attempt(deliveryId);
    if (result === 'retry') throw new RetryDeliveryError(`delivery ${deliveryId} failed; retrying with backoff`);
    return result;
  };
}

/** Pending deliveries always have a job (Redis lost, or never queued); one whose job kept failing is given up. */
export function deliveryRelay(job: ReturnType<typeof deliverWebhookJob>, deliveries: DeliveryService): OutboxJobKind<DeliverWebhookData> {
  return {
    job,
    findPending: async (limit) => (await deliveries.pending(limit)).map((deliveryId) => ({ deliveryId })),
    giveUp: (data) => deliveries.giveUp(data.deliveryId, 'its job kept failing; resend it to try again'),
  };
}

export class BullDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly queues: QueueKit,
    private readonly job: ReturnType<typeof deliverWebhookJob>,
  ) {}

  async enqueue(deliveryIds: readonly string[]): Promise<void> {
    await this.queues.enqueueMany(
      this.job,
      deliveryIds.map((deliveryId) => ({ deliveryId })),
    );
  }

  async requeue(deliveryId: string): Promise<void> {
    // A running job (locked) is left alone: it finds the delivery pending again and carries it out.
    await this.queues.requeue(this.job, { deliveryId }, deliveryId, 0);
  }
}
