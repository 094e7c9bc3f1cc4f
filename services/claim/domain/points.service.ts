import { NotFoundError } from '../../rules/errors';
import { normalizeIdentifier } from '../../rules/identifiers';
import type { Page } from '../../rules/pagination';
import type { CurrencyRecord, CurrencyRepository } from '../repositories/currency.repository';
import type { PointBalanceRecord, PointBalanceRepository } from '../repositories/point-balances';
import { requireProjectId } from './project';

/** The project's points balances (docs/claims.md#points): its top balances, or one user's. */
export class PointsService {
  constructor(
    private readonly currencies: CurrencyRepository,
    private readonly store: PointBalanceRepository,
  ) {}

  /**
   * With `user`, that user's balance alone (zeros when never credited: every user of the project has
   * one); else a page of the balances, highest first, ties by identifier.
   */
  async balances(
    projectId: string,
    user: { identifier: string; identifierType: string } | undefined,
    page: Page,
  ): Promise<{ currency: CurrencyRecord; records: PointBalanceRecord[]; total: number }> {
    requireProjectId(projectId);
    const who = user && normalizeIdentifier(user.identifier, user.identifierType, 'user');
    const currency = await this.currencies.pointCurrency(projectId);
    if (!currency) throw new NotFoundError('POINT_CURRENCY_NOT_FOUND', 'the project has no point currency');
    if (who) return { currency, records: [await this.store.of(projectId, currency.id, who)], total: 1 };
    return { currency, ...(await this.store.top(projectId, currency.id, page)) };
  }
}
