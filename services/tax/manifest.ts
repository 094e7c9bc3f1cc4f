import { TaxServiceService } from '../../gen/referral/tax/v1/tax';
import { SERVICE_CATALOG } from '../platform/service-catalog';
import type { ServiceManifest } from '../platform/service-manifest';
import { type TaxConfig, taxConfigSchema } from './config';
import type { TaxDatabase } from './database';
import { expireW8FormsJob } from './jobs/expire-w8-forms.job';
import { taxMigrations } from './migrations';
import { composeTaxService, tinVaultOf } from './server';

/** The tax service, declared once (services/platform/service-manifest.ts). */
export const taxManifest: ServiceManifest<TaxConfig, TaxDatabase> = {
  service: SERVICE_CATALOG.tax,
  configSchema: taxConfigSchema,
  // Migration 0002 re-seals tax ids with the configured key ring, and reports what it did.
  migrations: ({ config, logger }) => taxMigrations({ vault: tinVaultOf(config), logger }),
  grpc: TaxServiceService,
  jobs: [expireW8FormsJob],
  calls: [],
  compose: composeTaxService,
};
