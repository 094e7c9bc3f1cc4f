import { AudienceServiceService } from '../../gen/referral/audience/v1/audience';
import { SERVICE_CATALOG } from '../platform/service-catalog';
import type { ServiceManifest } from '../platform/service-manifest';
import { type AudienceConfig, audienceConfigSchema } from './config';
import type { AudienceDatabase } from './database';
import { affiliateMemberships } from './jobs/affiliate-memberships.consumer';
import { applicationApprovals } from './jobs/application-approved.consumer';
import { applyEntryBatchJob } from './jobs/apply-entry-batch.job';
import { conditionInputs } from './jobs/condition-inputs.consumer';
import { userEventCounts } from './jobs/user-event-counts.consumer';
import { evaluateSegmentJob } from './jobs/evaluate-segment.job';
import { audienceMigrations } from './migrations';
import { composeAudienceService } from './server';

/** The audience service, declared once (services/platform/service-manifest.ts). */
export const audienceManifest: ServiceManifest<AudienceConfig, AudienceDatabase> = {
  service: SERVICE_CATALOG.audience,
  configSchema: audienceConfigSchema,
  migrations: () => audienceMigrations,
  grpc: AudienceServiceService,
  jobs: [applyEntryBatchJob, evaluateSegmentJob, applicationApprovals.job, affiliateMemberships.job, conditionInputs.job, userEventCounts.job],
  calls: [],
  compose: composeAudienceService,
};
