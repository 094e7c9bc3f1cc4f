import type { Migration } from 'kysely';
import * as webhooksTables from './0001_webhooks_tables';
import * as outboxRelayState from './0002_outbox_relay_state';

/** Ordered by name; append, never edit a migration that has shipped. */
export const webhooksMigrations: Record<string, Migration> = {
  '0001_webhooks_tables': webhooksTables,
  '0002_outbox_relay_state': outboxRelayState,
};
