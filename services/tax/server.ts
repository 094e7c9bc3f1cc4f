import { TaxServiceService } from '../../gen/referral/tax/v1/tax';
import { FieldCipher } from '../common/crypto/field-cipher';
import { createLogger } from '../common/logger';
import { type RunningService, ServiceRuntime, type ServiceOverrides } from '../common/service-runtime';
import type { TaxConfig } from './config';
import type { TaxDatabase } from './database';
import { AuditLogService } from './domain/audit-log.service';
import { TaxInfoService } from './domain/tax-info.service';
import { TaxReviewService } from './domain/tax-review.service';
import { TaxSettingsService } from './domain/tax-settings.service';
import { TinVault } from './domain/tin-vault';
import { W8ExpiryService } from './domain/w8-expiry.service';
import { createTaxGrpcService, TAX_SERVICE_NAME } from './grpc/tax.grpc';
import { EXPIRE_W8_SCHEDULER_ID, expireW8Forms, expireW8FormsJob } from './jobs/expire-w8-forms.job';
import { taxMigrations } from './migrations';
import { AuditLogRepository } from './repositories/audit-log.repository';
import { TaxRecordRepository } from './repositories/tax-record.repository';
import { TaxSettingsRepository } from './repositories/tax-settings.repository';

export const TAX_SCHEMA = 'tax';

/** The composition root: plain constructors, wired once. Used by main.ts and by the tests. */
export async function startTaxService(config: TaxConfig, overrides: ServiceOverrides = {}): Promise<RunningService> {
  // The logger and the key ring exist before the runtime: migration 0002 re-seals tax ids and reports what it did.
  const logger = overrides.logger ?? createLogger({ service: 'tax', level: config.LOG_LEVEL, format: config.LOG_FORMAT, nodeEnv: config.NODE_ENV });
  const vault = new TinVault(new FieldCipher(config.encryption.keys, config.encryption.activeKeyId));
  const runtime = await ServiceRuntime.start<TaxDatabase>({
    name: 'tax',
    schema: TAX_SCHEMA,
    migrations: taxMigrations({ vault, logger }),
    config,
    overrides: { ...overrides, logger },
  });
  const { db, queues, relay, clock } = runtime;
  if (config.encryption.development) {
    logger.warn(
      'TAX_ENCRYPTION_KEYS is not set: tax identification numbers are encrypted with the built-in DEVELOPMENT key ' +
        `(key id ${config.encryption.activeKeyId}), which anyone with the source can read. Never store real tax data like this: ` +
        'set TAX_ENCRYPTION_KEYS=<id>:<base64 32 bytes> (openssl rand -base64 32) and TAX_ENCRYPTION_ACTIVE_KEY_ID=<id>.',
    );
  }

  const records = new TaxRecordRepository(db);
  const settings = new TaxSettingsRepository(db);
  const auditLog = new AuditLogRepository(db);
  const domain = {
    settings: new TaxSettingsService(settings, vault, clock, logger),
    taxInfo: new TaxInfoService(records, settings, vault, clock, logger),
    review: new TaxReviewService(records, settings, auditLog, vault, clock, logger),
    auditLog: new AuditLogService(auditLog),
  };
  const expiry = new W8ExpiryService(records, clock, logger);

  if (config.RUN_WORKERS) {
    queues.process(expireW8FormsJob, expireW8Forms(expiry));
    // Kept in place by the relay: re-created by itself when Redis comes back without it.
    relay.repeat({ job: expireW8FormsJob, schedulerId: EXPIRE_W8_SCHEDULER_ID, everyMs: config.W8_EXPIRY_SWEEP_EVERY_MS, payload: {} });
  }

  return runtime.serve([{ name: TAX_SERVICE_NAME, definition: TaxServiceService, implementation: createTaxGrpcService(domain, logger) }]);
}
