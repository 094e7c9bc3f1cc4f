import type { Kysely } from 'kysely';
import type { Clock } from '../platform/clock';
import type { Logger } from '../platform/logger';
import type { OutboxWaker } from '../platform/outbox/relay';
import type { AgencyDatabase } from './database';
import { AffiliateActivityService } from './domain/affiliate-activity.service';
import { LeaderboardService } from './domain/leaderboard.service';
import { AffiliateLeaderboardRepository } from './repositories/affiliate-leaderboard.repository';
import { AffiliateDetailsService } from './domain/affiliate-details.service';
import { AffiliateMetricsService, type PaidConversionSource } from './domain/affiliate-metrics.service';
import { AffiliateService } from './domain/affiliate.service';
import { ApplicationService } from './domain/application.service';
import type { AudienceDirectory } from './domain/audience-directory';
import { MasterService } from './domain/master.service';
import { ProgramSettingsService } from './domain/program-settings.service';
import { TierProtectionService } from './domain/tier-protection.service';
import { AttributionService } from './domain/attribution.service';
import { ReferralService } from './domain/referral.service';
import { InviteCodeService } from './domain/invite-code.service';
import { type TrackingBatchScheduler, TrackingEventService } from './domain/tracking-event.service';
import { AffiliateHistoryRepository } from './repositories/affiliate-history.repository';
import { AffiliateMetricsRepository } from './repositories/affiliate-metrics.repository';
import { AffiliateRepository } from './repositories/affiliate.repository';
import { AffiliateStatsRepository } from './repositories/affiliate-stats.repository';
import { ApplicationRepository } from './repositories/application.repository';
import { MasterMetricsRepository } from './repositories/master-metrics.repository';
import { MasterRepository } from './repositories/master.repository';
import { ProgramSettingsRepository } from './repositories/program-settings.repository';
import { TierProtectionRepository } from './repositories/tier-protection.repository';
import { AttributionRepository } from './repositories/attribution.repository';
import { ReferralRepository } from './repositories/referral.repository';
import { InviteCodeRepository } from './repositories/invite-code.repository';
import { ReferredUsersRepository } from './repositories/referred-users.repository';
import { SegmentTierRepository } from './repositories/segment-tier.repository';
import { TrackingProcessingService } from './domain/tracking-processing.service';
import { TrackingRepository } from './repositories/tracking.repository';
import { TrackingEventRepository } from './repositories/tracking-event.repository';

/** The agency service's rules, each with its real repositories. */
export interface AgencyDomain {
  affiliates: AffiliateService;
  referrals: ReferralService;
  /** Invite codes: generated for an affiliate, each with its max_uses. */
  inviteCodes: InviteCodeService;
  attribution: AttributionService;
  masters: MasterService;
  tierProtection: TierProtectionService;
  applications: ApplicationService;
  /** Master, is_master and tiers of affiliates, for every answer that carries an affiliate. */
  details: AffiliateDetailsService;
  /** The detail view's history, referred users and figures. */
  activity: AffiliateActivityService;
  leaderboards: LeaderboardService;
  /** The affiliate metrics projection's rebuild from the claim service. */
  metrics: AffiliateMetricsService;
  /** The program URL and referral link template of a project. */
  programSettings: ProgramSettingsService;
  /** What stored tracking events cause (clicks, links, referrals, counts), and their list. */
  tracking: TrackingProcessingService;
  /** Tracking events as received (POST /api/v1/events) and their table's monthly partitions. */
  trackingEvents: TrackingEventService;
}

export interface AgencyDomainDeps {
  db: Kysely<AgencyDatabase>;
  clock: Clock;
  logger: Logger;
  /** The audience service (its segments, for approvals and tier protection), over gRPC in the service. */
  audience: AudienceDirectory;
  /** Told after each commit that wrote events (the service's outbox relay). */
  outbox: OutboxWaker;
  /** The claim service's paid conversions (ListPaidConversions over gRPC in the service), for rebuilds. */
  paidConversions: PaidConversionSource;
  /** TRACKING_EVENT_RETENTION_DAYS: tracking events older than this are dropped. */
  trackingEventRetentionDays: number;
  /** Queues a stored batch of tracking events for processing (BullMQ in the service). */
  trackingBatches: TrackingBatchScheduler;
}

/**
 * Plain constructors, wired once: server.ts builds the domain the gRPC service serves with this,
 * and the medium tests (test/medium/agency) build the same one over a test database.
 */
export function buildAgencyDomain({
  db,
  clock,
  logger,
  audience,
  outbox,
  paidConversions,
  trackingEventRetentionDays,
  trackingBatches,
}: AgencyDomainDeps): AgencyDomain {
  const affiliates = new AffiliateRepository(db);
  const masters = new MasterRepository(db);
  const protections = new TierProtectionRepository(db);
  return {
    affiliates: new AffiliateService(affiliates, clock, logger, outbox),
    referrals: new ReferralService(new ReferralRepository(db), clock, logger, outbox),
    inviteCodes: new InviteCodeService(new InviteCodeRepository(db), clock, logger),
    attribution: new AttributionService(new AttributionRepository(db)),
    masters: new MasterService(masters, new MasterMetricsRepository(db), clock, logger),
    tierProtection: new TierProtectionService(protections, audience, clock, logger),
    applications: new ApplicationService(new ApplicationRepository(db), affiliates, audience, outbox, clock, logger),
    details: new AffiliateDetailsService(masters, protections, new SegmentTierRepository(db), clock),
    activity: new AffiliateActivityService(
      new AffiliateHistoryRepository(db),
      new ReferredUsersRepository(db),
      new AffiliateStatsRepository(db),
      clock,
    ),
    leaderboards: new LeaderboardService(new AffiliateLeaderboardRepository(db), clock),
    metrics: new AffiliateMetricsService(new AffiliateMetricsRepository(db), paidConversions, clock, logger),
    programSettings: new ProgramSettingsService(new ProgramSettingsRepository(db), clock, logger),
    tracking: new TrackingProcessingService(new TrackingRepository(db), clock, logger, outbox),
    trackingEvents: new TrackingEventService(new TrackingEventRepository(db), clock, logger, trackingEventRetentionDays, trackingBatches),
  };
}
