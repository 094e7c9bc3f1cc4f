import type { Migration } from 'kysely';
import type { Logger } from '../../platform/logger';
import type { TinVault } from '../domain/tin-vault';
import * as taxTables from './0001_tax_tables';
import { repairNonCanonicalSeals } from './0002_repair_non_canonical_seals';
import * as eventOutbox from './0003_event_outbox';
import * as publishTaxStatuses from './0004_publish_tax_statuses';
import * as outboxRelayState from './0005_outbox_relay_state';
import * as w8ExpiryRuleDefault from './0006_w8_expiry_rule_default';

/** What the tax migrations need beyond the database: 0002 opens and re-seals tax ids. */
export interface TaxMigrationDeps {
  vault: TinVault;
  logger: Logger;
}

/** Ordered by name; append, never edit a migration that has shipped. */
export function taxMigrations(deps: TaxMigrationDeps): Record<string, Migration> {
  return {
    '0001_tax_tables': taxTables,
    '0002_repair_non_canonical_seals': repairNonCanonicalSeals(deps.vault, deps.logger),
    '0003_event_outbox': eventOutbox,
    '0004_publish_tax_statuses': publishTaxStatuses,
    '0005_outbox_relay_state': outboxRelayState,
    '0006_w8_expiry_rule_default': w8ExpiryRuleDefault,
  };
}
