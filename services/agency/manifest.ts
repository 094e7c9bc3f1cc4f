import { AgencyServiceService } from '../../gen/referral/agency/v1/agency';
import { SERVICE_CATALOG } from '../platform/service-catalog';
import type { ServiceManifest } from '../platform/service-manifest';
import { type AgencyConfig, agencyConfigSchema } from './config';
import type { AgencyDatabase } from './database';
import { affiliateMetrics } from './jobs/affiliate-metrics.consumer';
import { audienceMemberships } from './jobs/audience-memberships.consumer';
import { segmentTiers } from './jobs/segment-tiers.consumer';
import { processTrackingBatchJob } from './jobs/process-tracking-batch.job';
import { taxStatuses } from './jobs/tax-statuses.consumer';
import { trackingEventPartitionsJob } from './jobs/tracking-event-partitions.job';
import { agencyMigrations } from './migrations';
import { composeAgencyService } from './server';

/** The agency service, declared once (services/platform/service-manifest.ts). */
export const agencyManifest: ServiceManifest<AgencyConfig, AgencyDatabase> = {
  service: SERVICE_CATALOG.agency,
  configSchema: agencyConfigSchema,
  migrations: () => agencyMigrations,
  grpc: AgencyServiceService,
  jobs: [audienceMemberships.job, segmentTiers.job, affiliateMetrics.job, taxStatuses.job, processTrackingBatchJob, trackingEventPartitionsJob],
  calls: [
    {
      service: 'audience',
      methods: ['GetSegment'],
      when: 'approving an application (the segment must be static), setting a tier protection (it must be a tier)',
    },
    // The one call back to claim, which calls the agency to pay: only the admin's rebuild of the metrics, never the event path.
    { service: 'claim', methods: ['ListPaidConversions'], when: 'rebuilding the affiliate metrics' },
  ],
  compose: composeAgencyService,
};
