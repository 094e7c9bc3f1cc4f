import type { Migration } from 'kysely';
import * as webhooksTables from './0001_webhooks_tables';

/** Ordered by name; append, never edit a migration that has shipped. */
export const webhooksMigrations: Record<string, Migration> = {
  '0001_webhooks_tables': webhooksTables,
};
