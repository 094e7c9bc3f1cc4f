import { FieldCipher } from '../platform/crypto/field-cipher';
import { startOutboxRelay } from '../platform/outbox/runtime';
import type { ServiceRuntime } from '../platform/service-runtime';
import type { TaxConfig } from './config';
import { buildTaxDomain } from './composition';
import type { TaxDatabase } from './database';
import { TinVault } from './domain/tin-vault';
import { createTaxGrpcService } from './grpc/tax.grpc';
import { EXPIRE_W8_SCHEDULER_ID, expireW8Forms, expireW8FormsJob } from './jobs/expire-w8-forms.job';

/** The key ring of the configuration, for tax ids: the service's and migration 0002's (which re-seals them). */
export function tinVaultOf(config: TaxConfig): TinVault {
  return new TinVault(new FieldCipher(config.encryption.keys, config.encryption.activeKeyId));
}

/** The composition root (see manifest.ts): the domain (composition.ts), the sweep job and the gRPC service. */
export async function composeTaxService(runtime: ServiceRuntime<TaxDatabase>, config: TaxConfig) {
  const { db, relay, clock, logger } = runtime;
  const vault = tinVaultOf(config);
  if (config.encryption.development) {
    logger.warn(
      'TAX_ENCRYPTION_KEYS is not set: tax identification numbers are encrypted with the built-in DEVELOPMENT key ' +
        `(key id ${config.encryption.activeKeyId}), which anyone with the source can read. Never store real tax data like this: ` +
        'set TAX_ENCRYPTION_KEYS=<id>:<base64 32 bytes> (openssl rand -base64 32) and TAX_ENCRYPTION_ACTIVE_KEY_ID=<id>.',
    );
  }

  const domain = buildTaxDomain({ db, clock, logger, vault, outbox: startOutboxRelay(runtime, config) });

  runtime.process(expireW8FormsJob, expireW8Forms(domain.expiry));
  // Kept in place by the relay: re-created by itself when Redis comes back without it.
  relay.repeat({ job: expireW8FormsJob, schedulerId: EXPIRE_W8_SCHEDULER_ID, everyMs: config.W8_EXPIRY_SWEEP_EVERY_MS, payload: {} });

  return createTaxGrpcService(domain, logger);
}
