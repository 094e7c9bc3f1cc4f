import type { Clock } from '../../platform/clock';
import type { Logger } from '../../platform/logger';
import type { TaxTransitionRepository } from '../repositories/tax-transition.repository';
import { W8_FORM_TYPES } from './w8-expiry';

/** Rows one sweep transaction takes; the sweep repeats until none are left. */
const SWEEP_BATCH = 500;

export class W8ExpiryService {
  constructor(
    private readonly transitions: TaxTransitionRepository,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /**
   * Writes down what reads already show: every approved W-8 whose expires_at has passed becomes
   * expired, with a history entry. Idempotent: a second sweep finds nothing to do.
   */
  async expireDue(): Promise<number> {
    const now = this.clock.now();
    let expired = 0;
    for (;;) {
      const count = await this.transitions.expireDue(W8_FORM_TYPES, now, SWEEP_BATCH);
      expired += count;
      if (count < SWEEP_BATCH) break;
    }
    if (expired > 0) this.logger.info({ expired, as_of: now.toISOString() }, 'W-8 forms expired');
    return expired;
  }
}
