import type { Kysely } from 'kysely';
import type { Clock } from '../platform/clock';
import type { Logger } from '../platform/logger';
import type { OutboxWaker } from '../platform/outbox/relay';
import type { TaxDatabase } from './database';
import { AuditLogService } from './domain/audit-log.service';
import { TaxInfoService } from './domain/tax-info.service';
import { TaxReviewService } from './domain/tax-review.service';
import { TaxSettingsService } from './domain/tax-settings.service';
import type { TinVault } from './domain/tin-vault';
import { W8ExpiryService } from './domain/w8-expiry.service';
import { AuditLogRepository } from './repositories/audit-log.repository';
import { TaxRecordRepository } from './repositories/tax-record.repository';
import { TaxSettingsRepository } from './repositories/tax-settings.repository';
import { TaxTransitionRepository } from './repositories/tax-transition.repository';

/** The tax service's rules, each with its real repositories. */
export interface TaxDomain {
  settings: TaxSettingsService;
  taxInfo: TaxInfoService;
  review: TaxReviewService;
  auditLog: AuditLogService;
  /** The W-8 sweep's step (run by the expire-w8-forms job). */
  expiry: W8ExpiryService;
}

export interface TaxDomainDeps {
  db: Kysely<TaxDatabase>;
  clock: Clock;
  logger: Logger;
  vault: TinVault;
  /** Told after each commit that wrote events (the service's outbox relay); none in tests that relay by hand. */
  outbox?: OutboxWaker;
}

/**
 * Plain constructors, wired once: server.ts builds the domain the gRPC service and the sweep job
 * use with this, and the medium tests (test/medium/tax) build the same one over a test database.
 */
export function buildTaxDomain({ db, clock, logger, vault, outbox }: TaxDomainDeps): TaxDomain {
  const records = new TaxRecordRepository(db);
  const transitions = new TaxTransitionRepository(db, outbox);
  const settings = new TaxSettingsRepository(db, outbox);
  const auditLog = new AuditLogRepository(db);
  return {
    settings: new TaxSettingsService(settings, vault, clock, logger),
    taxInfo: new TaxInfoService(records, transitions, settings, vault, clock, logger),
    review: new TaxReviewService(records, transitions, settings, auditLog, vault, clock, logger),
    auditLog: new AuditLogService(auditLog),
    expiry: new W8ExpiryService(transitions, clock, logger),
  };
}
