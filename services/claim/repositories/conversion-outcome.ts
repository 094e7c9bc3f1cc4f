import type { TermsCaps } from '../domain/caps';
import type { Attribution, Eligibility, PlannedMovement } from '../domain/payouts';
import type { ConversionStatus, PendingReason } from '../domain/vocabulary';
import type { NewConversionReview } from './conversion-review.repository';

/** One conversion's outcome, as the job writes it: status, frozen attribution, eligibility and currency, movements. */
export interface ConversionOutcome {
  id: string;
  status: Exclude<ConversionStatus, 'accepted'>;
  failureReason: string | null;
  currencyId: string | null;
  attribution: Attribution | null;
  movements: PlannedMovement[];
  /** What the terms' allowlists decided (processed only; null otherwise). */
  eligibility: Eligibility | null;
  /**
   * Why its movements wait (pending, in no check) rather than being available at once: `hold`
   * (the terms' hold_days), `approval` (the terms' require_approval), `review` (it broke a review
   * rule: `review` below); null: available now. A movement marked `waitsForFlag` waits for `review`
   * whatever this says (its affiliate is flagged).
   */
  pendingReason: PendingReason | null;
  /** The review rules it broke, written to the review queue (conversion_reviews) with its movements; null: none. */
  review: NewConversionReview | null;
  /** Days after processing its movements become available (the terms' hold_days; 0 without terms). */
  holdDays: number;
  /** Its terms' caps, applied to its movements in the payment's transaction (applyCaps); null: its terms have none. */
  caps: TermsCaps | null;
}
