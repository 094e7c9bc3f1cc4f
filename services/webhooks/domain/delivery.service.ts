import type { Clock } from '../../platform/clock';
import { NotFoundError } from '../../rules/errors';
import type { Logger } from '../../platform/logger';
import { isUuid } from '../../rules/ids';
import { type Page, pageInfo } from '../../rules/pagination';
import type { DeliverySettings } from './delivery-settings';
import type { DeliveryRepository, DeliveryRow } from '../repositories/delivery.repository';
import type { WebhookRepository } from '../repositories/webhook.repository';
import { eventBody } from './public-events';
import type { SecretVault } from './secret-vault';
import { signatureHeaders } from './signing';

/** Queues delivery jobs (job id = delivery id). */
export interface DeliveryQueue {
  enqueue(deliveryIds: readonly string[]): Promise<void>;
  /** A finished delivery made pending again: a fresh job in place of its finished one. */
  requeue(deliveryId: string): Promise<void>;
}

/** One HTTP POST and what came of it: a status code, or why none came. */
export interface SendResult {
  responseCode: number | null;
  error: string | null;
  durationMs: number;
}

export type Sender = (url: string, body: string, headers: Record<string, string>, timeoutMs: number) => Promise<SendResult>;

/** What a delivery attempt did, for its job: retry (throw) only on 'retry'. */
export type AttemptResult = 'delivered' | 'retry' | 'failed' | 'skipped';

/** Longest error text kept per attempt. */
const MAX_ERROR_LENGTH = 500;

/**
 * Fans events out to endpoints and carries each delivery out, attempt by attempt. A delivery is a
 * row per (event, endpoint), created once; its job POSTs the same body and id on every attempt until
 * a 2xx, the attempts allowed or the retry window runs out.
 */
export class DeliveryService {
  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly webhooks: WebhookRepository,
    private readonly vault: SecretVault,
    private readonly send: Sender,
    private readonly settings: DeliverySettings,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async pendingOfEvent(eventId: string): Promise<string[]> {
    return this.deliveries.pendingOfEvent(eventId);
  }

  async pending(limit: number): Promise<string[]> {
    return this.deliveries.pending(limit);
  }

  /** One attempt. Anything but a 2xx before the last attempt answers 'retry' (the job throws, BullMQ backs off). */
  async attempt(deliveryId: string): Promise<AttemptResult> {
    const work = await this.deliveries.work(deliveryId);
    if (!work || work.delivery.status !== 'pending') return 'skipped';
    const target = await this.webhooks.target(work.delivery.webhook_id);
    if (!target) return 'skipped';
    if (!target.enabled) {
      await this.deliveries.fail(deliveryId, 'the webhook was disabled before this delivery succeeded');
      return 'failed';
    }
    const attempt = work.delivery.attempts + 1;
    const at = this.clock.now();
    const body = eventBody(work.event);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'referral-platform-webhooks/1',
      ...signatureHeaders(this.vault.open(target.id, target.sealed), work.event.id, at, body),
    };
    const sent = await this.send(target.url, body, headers, this.settings.timeoutMs);
    const ok = sent.responseCode !== null && sent.responseCode >= 200 && sent.responseCode < 300;
    const attemptsSinceRetry = attempt - work.delivery.retry_base;
    const windowOver = at.getTime() - work.delivery.retry_from.getTime() >= this.settings.retryWindowMs;
    const last = !ok && (attemptsSinceRetry >= this.settings.maxAttempts || windowOver);
    const status = ok ? 'delivered' : last ? 'failed' : 'pending';
    // BullMQ's exponential backoff with jitter waits at most this long (and at least half of it).
    const nextAttemptAt = status === 'pending' ? new Date(at.getTime() + this.settings.backoffMs * 2 ** (attemptsSinceRetry - 1)) : null;
    const error = ok ? null : (sent.error ?? `the endpoint answered ${sent.responseCode}`).slice(0, MAX_ERROR_LENGTH);
    const recorded = await this.deliveries.recordAttempt(deliveryId, {
      attempt,
      at,
      responseCode: sent.responseCode,
      error,
      durationMs: sent.durationMs,
      status,
      nextAttemptAt,
    });
    if (!recorded) return 'skipped';
    this.logger.info(
      { delivery_id: deliveryId, event_id: work.event.id, attempt, response_code: sent.responseCode, status },
      'webhook delivery attempt',
    );
    return status === 'pending' ? 'retry' : status;
  }

  /** Given up by the relay (its job kept failing for reasons other than the endpoint's answer). */
  async giveUp(deliveryId: string, reason: string): Promise<void> {
    await this.deliveries.fail(deliveryId, reason.slice(0, MAX_ERROR_LENGTH));
  }

  async list(projectId: string, webhookId: string, page: Page): Promise<{ results: DeliveryRow[]; pageInfo: ReturnType<typeof pageInfo> }> {
    if (!isUuid(webhookId) || !(await this.webhooks.find(projectId, webhookId)))
      throw new NotFoundError('WEBHOOK_NOT_FOUND', 'no such webhook in this project');
    const { records, total } = await this.deliveries.list(projectId, webhookId, page);
    return { results: records, pageInfo: pageInfo(page, total) };
  }

  /** Delivers the same event (same id and body) again, with a fresh retry window. */
  async resend(projectId: string, webhookId: string, deliveryId: string, queue: DeliveryQueue): Promise<DeliveryRow> {
    const row =
      isUuid(webhookId) && isUuid(deliveryId) ? await this.deliveries.reopen(projectId, webhookId, deliveryId, this.clock.now()) : undefined;
    if (!row) throw new NotFoundError('WEBHOOK_DELIVERY_NOT_FOUND', 'no such delivery of this webhook');
    await queue.requeue(deliveryId);
    return row;
  }
}
