import type { Kysely } from 'kysely';
import type { Clock } from '../platform/clock';
import type { Logger } from '../platform/logger';
import type { OutboxWaker } from '../platform/outbox/relay';
import type { ClaimDatabase } from './database';
import type { AllowlistSource } from './domain/allowlists';
import type { AttributionSource } from './domain/attribution';
import { ChainWatcherService, type ClaimManagerReaderFactory, type WatcherOptions } from './domain/chain-watcher.service';
import type { ChainDirectory } from './domain/chains';
import { ClaimCheckService, type VoucherSigning } from './domain/claim-check.service';
import { ClaimSettingsService } from './domain/claim-settings.service';
import { type ConversionScheduler, ConversionService } from './domain/conversion.service';
import { CurrencyService } from './domain/currency.service';
import { LedgerService } from './domain/ledger.service';
import { PointsService } from './domain/points.service';
import { MovementDecisionService } from './domain/movement-decision.service';
import { ReversalService } from './domain/reversal.service';
import { ReversalRepository } from './repositories/reversal.repository';
import { PaidConversionService } from './domain/paid-conversion.service';
import { PayoutService } from './domain/payout.service';
import { PayoutTermsService } from './domain/payout-terms.service';
import { ReconciliationService } from './domain/reconciliation.service';
import { ReviewService } from './domain/review.service';
import { TaxGate, type TaxStatusSource } from './domain/tax-gate';
import { ClaimCheckRepository } from './repositories/claim-check.repository';
import { ClaimSettingsRepository } from './repositories/claim-settings.repository';
import { ConversionRepository } from './repositories/conversion.repository';
import { KnownCurrencies } from './repositories/known-currencies';
import { CurrencyRepository } from './repositories/currency.repository';
import { LeaderboardRepository } from './repositories/leaderboard.repository';
import { LedgerRepository } from './repositories/ledger.repository';
import { PointBalanceRepository } from './repositories/point-balances';
import { MovementRepository } from './repositories/movement.repository';
import { MovementStatusRepository } from './repositories/movement-status.repository';
import { PaidConversionRepository } from './repositories/paid-conversion.repository';
import { PayoutTermsRepository } from './repositories/payout-terms.repository';
import { ReconciliationRepository } from './repositories/reconciliation.repository';
import { ConversionReviewRepository } from './repositories/conversion-review.repository';
import { ReviewFactsRepository } from './repositories/review-facts.repository';
import { ReviewSettingsRepository } from './repositories/review-settings.repository';
import { VoucherRepository } from './repositories/voucher.repository';

/** The claim service's rules, each with its real repositories. */
export interface ClaimDomain {
  currencies: CurrencyService;
  terms: PayoutTermsService;
  conversions: ConversionService;
  /** The job's step: pays stored batches of conversions. */
  payouts: PayoutService;
  ledger: LedgerService;
  /** The points balances (docs/claims.md#points). */
  points: PointsService;
  /** Approvals and declines of waiting movements, and the release of held ones (the release job's step). */
  decisions: MovementDecisionService;
  reversals: ReversalService;
  /** Paid conversions by id, for projections rebuilt from them. */
  paidConversions: PaidConversionService;
  /** What the ledger holds per currency and kind, in one snapshot, and whether it balances. */
  reconciliation: ReconciliationService;
  /** A user's claim checks: list, close into vouchers, claimable, totals, history. */
  claimChecks: ClaimCheckService;
  claimSettings: ClaimSettingsService;
  /** The watch job's step: Claimed logs and expired vouchers of one chain. */
  watcher: ChainWatcherService;
  /** Review rules per project and the conversions they flagged. */
  review: ReviewService;
}

/** What the claim-check half needs beyond the database: signing, the chains and the tax gate. */
export interface ClaimCheckDeps {
  signer: VoucherSigning;
  chains: ChainDirectory;
  /** CLAIM_VOUCHER_TTL_SECONDS. */
  ttlSeconds: number;
  /** The tax service (TaxStatusClient, grpc/outbound-clients.ts). */
  taxStatus: TaxStatusSource;
  /** How the watcher reads a chain (claimManagerReader over viem in server.ts). */
  readerOf: ClaimManagerReaderFactory;
  watcher: WatcherOptions;
}

export interface ClaimDomainDeps {
  db: Kysely<ClaimDatabase>;
  clock: Clock;
  logger: Logger;
  /** How stored batches reach the job (a BatchJobScheduler over the queues in server.ts). */
  scheduler: ConversionScheduler;
  /** Who referred whom: the agency service (AgencyAttributionSource, grpc/outbound-clients.ts). */
  attribution: AttributionSource;
  /** Who is on payout terms' allowlists: the audience service (AudienceAllowlistClient, grpc/outbound-clients.ts). */
  allowlists: AllowlistSource;
  /** Told after each commit that wrote events (the service's outbox relay). */
  outbox: OutboxWaker;
  checks: ClaimCheckDeps;
  /** CLAIM_LEADERBOARD_CACHE_MS: how long a leaderboard page is answered again (0, the default, not at all). */
  leaderboardCacheMs?: number;
  /** CONVERSION_BACKFILL_DAYS: how long before its project's creation a conversion may have happened (365 by default). */
  conversionBackfillDays?: number;
}

/**
 * Plain constructors, wired once: server.ts builds the domain the gRPC service and the job use with
 * this, and the medium tests (test/medium/claim) build the same one over a test database.
 */
export function buildClaimDomain({
  db,
  clock,
  logger,
  scheduler,
  attribution,
  allowlists,
  outbox,
  checks,
  leaderboardCacheMs = 0,
  conversionBackfillDays,
}: ClaimDomainDeps): ClaimDomain {
  const currencies = new CurrencyRepository(db);
  const knownCurrencies = new KnownCurrencies(currencies);
  const terms = new PayoutTermsRepository(db);
  const conversions = new ConversionRepository(db);
  const review = new ReviewService(new ReviewSettingsRepository(db), new ConversionReviewRepository(db), new ReviewFactsRepository(db), clock);
  return {
    currencies: new CurrencyService(currencies, clock),
    terms: new PayoutTermsService(terms, allowlists, clock, logger),
    conversions: new ConversionService(conversions, scheduler, clock, logger, conversionBackfillDays),
    payouts: new PayoutService(conversions, terms, new LedgerRepository(db), attribution, outbox, clock, logger, knownCurrencies, allowlists, review),
    ledger: new LedgerService(new MovementRepository(db), new LeaderboardRepository(db), currencies, clock, leaderboardCacheMs),
    points: new PointsService(currencies, new PointBalanceRepository(db)),
    decisions: new MovementDecisionService(new MovementStatusRepository(db), new MovementRepository(db), clock, logger),
    reversals: new ReversalService(new ReversalRepository(db), outbox, clock, logger),
    paidConversions: new PaidConversionService(new PaidConversionRepository(db)),
    reconciliation: new ReconciliationService(new ReconciliationRepository(db)),
    review,
    ...buildClaimCheckDomain(db, clock, logger, checks, outbox, knownCurrencies),
  };
}

function buildClaimCheckDomain(
  db: Kysely<ClaimDatabase>,
  clock: Clock,
  logger: Logger,
  deps: ClaimCheckDeps,
  outbox: OutboxWaker,
  knownCurrencies: KnownCurrencies,
) {
  const vouchers = new VoucherRepository(db);
  const settings = new ClaimSettingsRepository(db);
  const issuing = { signer: deps.signer, chains: deps.chains, ttlSeconds: deps.ttlSeconds };
  return {
    claimChecks: new ClaimCheckService(
      new ClaimCheckRepository(db, knownCurrencies),
      vouchers,
      settings,
      new TaxGate(deps.taxStatus),
      issuing,
      clock,
      logger,
      outbox,
    ),
    claimSettings: new ClaimSettingsService(settings, clock),
    watcher: new ChainWatcherService(vouchers, deps.chains, deps.readerOf, clock, logger, deps.watcher, outbox),
  };
}
