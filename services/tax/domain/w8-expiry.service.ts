import type { Clock } from '../../common/clock';
import type { Logger } from '../../common/logger';
import type { TaxRecordRepository } from '../repositories/tax-record.repository';

/** Rows one sweep transaction takes; the sweep repeats until none are left. */
const SWEEP_BATCH = 500;

export class W8ExpiryService {
  constructor(
    private readonly records: TaxRecordRepository,
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
      const count = await this.records.expireDue(now, SWEEP_BATCH);
      expired += count;
      if (count < SWEEP_BATCH) break;
    }
    if (expired > 0) this.logger.info({ expired, as_of: now.toISOString() }, 'W-8 forms expired');
    return expired;
  }
}
