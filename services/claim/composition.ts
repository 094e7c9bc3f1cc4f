import type { Kysely } from 'kysely';
import type { Clock } from '../common/clock';
import type { Logger } from '../common/logger';
import type { OutboxWaker } from '../common/outbox/relay';
import type { ClaimDatabase } from './database';
import type { AttributionSource } from './domain/attribution';
import { type ConversionScheduler, ConversionService } from './domain/conversion.service';
import { CurrencyService } from './domain/currency.service';
import { LedgerService } from './domain/ledger.service';
import { PayoutService } from './domain/payout.service';
import { PayoutTermsService } from './domain/payout-terms.service';
import { ConversionRepository } from './repositories/conversion.repository';
import { CurrencyRepository } from './repositories/currency.repository';
import { LeaderboardRepository } from './repositories/leaderboard.repository';
import { LedgerRepository } from './repositories/ledger.repository';
import { MovementRepository } from './repositories/movement.repository';
import { PayoutTermsRepository } from './repositories/payout-terms.repository';

/** The claim service's rules, each with its real repositories. */
export interface ClaimDomain {
  currencies: CurrencyService;
  terms: PayoutTermsService;
  conversions: ConversionService;
  /** The job's step: pays stored batches of conversions. */
  payouts: PayoutService;
  ledger: LedgerService;
}

export interface ClaimDomainDeps {
  db: Kysely<ClaimDatabase>;
  clock: Clock;
  logger: Logger;
  /** How stored batches reach the job (BullConversionScheduler over the queues in server.ts). */
  scheduler: ConversionScheduler;
  /** Who referred whom: the agency service (AgencyAttributionSource in server.ts). */
  attribution: AttributionSource;
  /** Told after each commit that wrote events (the service's outbox relay). */
  outbox: OutboxWaker;
}

/**
 * Plain constructors, wired once: server.ts builds the domain the gRPC service and the job use with
 * this, and the medium tests (test/medium/claim) build the same one over a test database.
 */
export function buildClaimDomain({ db, clock, logger, scheduler, attribution, outbox }: ClaimDomainDeps): ClaimDomain {
  const currencies = new CurrencyRepository(db);
  const terms = new PayoutTermsRepository(db);
  const conversions = new ConversionRepository(db);
  return {
    currencies: new CurrencyService(currencies, clock),
    terms: new PayoutTermsService(terms, clock, logger),
    conversions: new ConversionService(conversions, scheduler, clock, logger),
    payouts: new PayoutService(conversions, terms, new LedgerRepository(db), attribution, outbox, clock, logger),
    ledger: new LedgerService(new MovementRepository(db), new LeaderboardRepository(db), currencies, clock),
  };
}
