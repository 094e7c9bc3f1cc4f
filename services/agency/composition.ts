import type { Kysely } from 'kysely';
import type { Clock } from '../common/clock';
import type { Logger } from '../common/logger';
import type { AgencyDatabase } from './database';
import { AffiliateService } from './domain/affiliate.service';
import { AttributionService } from './domain/attribution.service';
import { ReferralService } from './domain/referral.service';
import { AffiliateRepository } from './repositories/affiliate.repository';
import { AttributionRepository } from './repositories/attribution.repository';
import { ReferralRepository } from './repositories/referral.repository';

/** The agency service's rules, each with its real repositories. */
export interface AgencyDomain {
  affiliates: AffiliateService;
  referrals: ReferralService;
  attribution: AttributionService;
}

export interface AgencyDomainDeps {
  db: Kysely<AgencyDatabase>;
  clock: Clock;
  logger: Logger;
}

/**
 * Plain constructors, wired once: server.ts builds the domain the gRPC service serves with this,
 * and the medium tests (test/medium/agency) build the same one over a test database.
 */
export function buildAgencyDomain({ db, clock, logger }: AgencyDomainDeps): AgencyDomain {
  return {
    affiliates: new AffiliateService(new AffiliateRepository(db), clock, logger),
    referrals: new ReferralService(new ReferralRepository(db), clock, logger),
    attribution: new AttributionService(new AttributionRepository(db)),
  };
}
