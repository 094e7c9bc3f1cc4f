import { ClaimServiceService } from '../../gen/referral/claim/v1/claim';
import { SERVICE_CATALOG } from '../platform/service-catalog';
import type { ServiceManifest } from '../platform/service-manifest';
import { type ClaimConfig, claimConfigSchema } from './config';
import type { ClaimDatabase } from './database';
import { affiliateUnflags } from './jobs/affiliate-unflags.consumer';
import { watchChainJob } from './jobs/chain-watcher.job';
import { payConversionsJob } from './jobs/pay-conversions.job';
import { releaseHeldMovementsJob } from './jobs/release-held-movements.job';
import { claimMigrations } from './migrations';
import { composeClaimService } from './server';

/** The claim service, declared once (services/platform/service-manifest.ts). */
export const claimManifest: ServiceManifest<ClaimConfig, ClaimDatabase> = {
  service: SERVICE_CATALOG.claim,
  configSchema: claimConfigSchema,
  migrations: () => claimMigrations,
  grpc: ClaimServiceService,
  jobs: [payConversionsJob, watchChainJob, releaseHeldMovementsJob, affiliateUnflags.job],
  calls: [
    { service: 'agency', methods: ['CreateReferral', 'BatchResolveAttribution'], when: 'paying a batch of conversions' },
    {
      service: 'audience',
      methods: ['CheckMemberships', 'GetSegment'],
      when: 'paying a batch whose payout terms name allowlists; saving such terms',
    },
    { service: 'tax', methods: ['BatchGetTaxStatuses'], when: 'the tax gate of claim-check reads and closes' },
  ],
  compose: composeClaimService,
};
