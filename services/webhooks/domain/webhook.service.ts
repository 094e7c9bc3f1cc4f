import { randomUUID } from 'node:crypto';
import type { Clock } from '../../platform/clock';
import { type FieldViolation, InvalidArgumentError, NotFoundError, ResourceExhaustedError } from '../../rules/errors';
import { isUuid } from '../../rules/ids';
import { type Page, pageInfo } from '../../rules/pagination';
import type { WebhookRepository, WebhookRow } from '../repositories/webhook.repository';
import { urlViolations } from './endpoint-url';
import { isPublicEventType, PUBLIC_EVENT_TYPES } from './public-events';
import type { SecretVault } from './secret-vault';
import { newSigningSecret } from './signing';

/** Endpoints a project may have. */
export const MAX_WEBHOOKS_PER_PROJECT = 50;

export interface WebhookInput {
  url: string;
  events: readonly string[];
  enabled?: boolean;
}

export interface WebhookChanges {
  url?: string;
  events?: readonly string[];
  enabled?: boolean;
}

function eventsViolations(events: readonly string[]): FieldViolation[] {
  if (events.length === 0) return [{ field: 'events', reason: `must name at least one event (${PUBLIC_EVENT_TYPES.join(', ')})` }];
  return events.flatMap((type, index) =>
    isPublicEventType(type) ? [] : [{ field: `events[${index}]`, reason: `is not an event type; one of ${PUBLIC_EVENT_TYPES.join(', ')}` }],
  );
}

function refuseIfInvalid(violations: FieldViolation[]): void {
  if (violations.length > 0)
    throw new InvalidArgumentError(
      'INVALID_WEBHOOK',
      `the webhook is invalid: ${violations.map((v) => `${v.field} ${v.reason}`).join('; ')}`,
      violations,
    );
}

const notFound = () => new NotFoundError('WEBHOOK_NOT_FOUND', 'no such webhook in this project');

/** A project's endpoints: created with a secret shown once, listed and changed without it. */
export class WebhookService {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly vault: SecretVault,
    private readonly clock: Clock,
    private readonly production: boolean,
  ) {}

  async create(projectId: string, input: WebhookInput): Promise<{ webhook: WebhookRow; secret: string }> {
    refuseIfInvalid([...urlViolations(input.url, this.production), ...eventsViolations(input.events)]);
    const existing = await this.webhooks.list(projectId, { page: 1, pageSize: 1, offset: 0 });
    if (existing.total >= MAX_WEBHOOKS_PER_PROJECT) {
      throw new ResourceExhaustedError('WEBHOOK_LIMIT_REACHED', `a project may have at most ${MAX_WEBHOOKS_PER_PROJECT} webhooks; delete one first`);
    }
    const id = randomUUID();
    const secret = newSigningSecret();
    const now = this.clock.now();
    const webhook = await this.webhooks.insert(
      {
        id,
        project_id: projectId,
        url: input.url,
        events: [...new Set(input.events)],
        enabled: input.enabled ?? true,
        created_at: now,
        updated_at: now,
      },
      this.vault.seal(id, secret),
    );
    return { webhook, secret };
  }

  async get(projectId: string, id: string): Promise<WebhookRow> {
    const webhook = isUuid(id) ? await this.webhooks.find(projectId, id) : undefined;
    if (!webhook) throw notFound();
    return webhook;
  }

  async list(projectId: string, page: Page) {
    const { records, total } = await this.webhooks.list(projectId, page);
    return { results: records, pageInfo: pageInfo(page, total) };
  }

  async update(projectId: string, id: string, changes: WebhookChanges): Promise<WebhookRow> {
    refuseIfInvalid([
      ...(changes.url === undefined ? [] : urlViolations(changes.url, this.production)),
      ...(changes.events === undefined ? [] : eventsViolations(changes.events)),
    ]);
    if (!isUuid(id)) throw notFound();
    const updated = await this.webhooks.update(
      projectId,
      id,
      {
        ...(changes.url === undefined ? {} : { url: changes.url }),
        ...(changes.events === undefined ? {} : { events: [...new Set(changes.events)] }),
        ...(changes.enabled === undefined ? {} : { enabled: changes.enabled }),
      },
      this.clock.now(),
    );
    if (!updated) throw notFound();
    return updated;
  }

  async delete(projectId: string, id: string): Promise<void> {
    if (!isUuid(id) || !(await this.webhooks.delete(projectId, id))) throw notFound();
  }
}
