import { TaxServiceService } from '../../gen/referral/tax/v1/tax';
import { FieldCipher } from '../common/crypto/field-cipher';
import { createLogger } from '../common/logger';
import { type RunningService, ServiceRuntime, type ServiceOverrides } from '../common/service-runtime';
import type { TaxConfig } from './config';
import { buildTaxDomain } from './composition';
import type { TaxDatabase } from './database';
import { TinVault } from './domain/tin-vault';
import { createTaxGrpcService, TAX_SERVICE_NAME } from './grpc/tax.grpc';
import { EXPIRE_W8_SCHEDULER_ID, expireW8Forms, expireW8FormsJob } from './jobs/expire-w8-forms.job';
import { taxMigrations } from './migrations';

export const TAX_SCHEMA = 'tax';

/** The service's process: its runtime, its domain (composition.ts), the sweep job and gRPC. Used by main.ts and by the tests. */
export async function startTaxService(config: TaxConfig, overrides: ServiceOverrides = {}): Promise<RunningService> {
  // The logger and the key ring exist before the runtime: migration 0002 re-seals tax ids and reports what it did.
  const logger = overrides.logger ?? createLogger({ service: 'tax', level: config.LOG_LEVEL });
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

  const domain = buildTaxDomain({ db, clock, logger, vault });

  if (config.RUN_WORKERS) {
    queues.process(expireW8FormsJob, expireW8Forms(domain.expiry));
    // Kept in place by the relay: re-created by itself when Redis comes back without it.
    relay.repeat({ job: expireW8FormsJob, schedulerId: EXPIRE_W8_SCHEDULER_ID, everyMs: config.W8_EXPIRY_SWEEP_EVERY_MS, payload: {} });
  }

  return runtime.serve([{ name: TAX_SERVICE_NAME, definition: TaxServiceService, implementation: createTaxGrpcService(domain, logger) }]);
}
