import { TaxServiceService } from '../../gen/referral/tax/v1/tax';
import { type Clock, systemClock } from '../common/clock';
import { FieldCipher } from '../common/crypto/field-cipher';
import { ensureDatabaseExists, openDatabase } from '../common/db/database';
import { migrateToLatest } from '../common/db/migrate';
import { startGrpcServer } from '../common/grpc/server';
import type { RunningProcess } from '../common/lifecycle';
import { createLogger, type Logger } from '../common/logger';
import { QueueKit } from '../common/queue';
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

export interface TaxOverrides {
  clock?: Clock;
  logger?: Logger;
}

export interface RunningTaxService extends RunningProcess {
  grpcPort: number;
}

/** The composition root: plain constructors, wired once. Used by main.ts and by the tests. */
export async function startTaxService(config: TaxConfig, overrides: TaxOverrides = {}): Promise<RunningTaxService> {
  const logger = overrides.logger ?? createLogger({ service: 'tax', level: config.LOG_LEVEL });
  const clock = overrides.clock ?? systemClock;
  if (config.encryption.development) {
    logger.warn(
      'TAX_ENCRYPTION_KEYS is not set: tax identification numbers are encrypted with the built-in DEVELOPMENT key ' +
        `(key id ${config.encryption.activeKeyId}), which anyone with the source can read. Never store real tax data like this: ` +
        'set TAX_ENCRYPTION_KEYS=<id>:<base64 32 bytes> (openssl rand -base64 32) and TAX_ENCRYPTION_ACTIVE_KEY_ID=<id>.',
    );
  }

  await ensureDatabaseExists(config.DATABASE_URL);
  const database = openDatabase<TaxDatabase>({
    url: config.DATABASE_URL,
    schema: TAX_SCHEMA,
    poolMax: config.DB_POOL_MAX,
    applicationName: 'tax',
    logger,
  });
  await migrateToLatest(database.db, TAX_SCHEMA, taxMigrations, logger);

  const queues = new QueueKit({ redisUrl: config.REDIS_URL, prefix: config.QUEUE_PREFIX, logger });
  await queues.ready();

  const vault = new TinVault(new FieldCipher(config.encryption.keys, config.encryption.activeKeyId));
  const records = new TaxRecordRepository(database.db);
  const settings = new TaxSettingsRepository(database.db);
  const auditLog = new AuditLogRepository(database.db);
  const domain = {
    settings: new TaxSettingsService(settings, vault, clock, logger),
    taxInfo: new TaxInfoService(records, settings, vault, clock, logger),
    review: new TaxReviewService(records, settings, auditLog, vault, clock, logger),
    auditLog: new AuditLogService(auditLog),
  };
  const expiry = new W8ExpiryService(records, clock, logger);

  if (config.RUN_WORKERS) {
    queues.process(expireW8FormsJob, expireW8Forms(expiry));
    await queues
      .queue(expireW8FormsJob.queue)
      .upsertJobScheduler(
        EXPIRE_W8_SCHEDULER_ID,
        { every: config.W8_EXPIRY_SWEEP_EVERY_MS },
        { name: expireW8FormsJob.queue, data: { payload: {} } },
      );
  }

  const grpc = await startGrpcServer({
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    logger,
    services: [{ name: TAX_SERVICE_NAME, definition: TaxServiceService, implementation: createTaxGrpcService(domain, logger) }],
  });

  return {
    grpcPort: grpc.port,
    stop: async () => {
      await grpc.shutdown(config.SHUTDOWN_GRACE_MS);
      await queues.close();
      await database.close();
      logger.info('tax service stopped');
      logger.flush();
    },
  };
}
