import type { CurrencyRecord, CurrencyRepository } from './currency.repository';

/** Enough currencies for every project of a deployment; past it the memo starts over. */
const MEMO_SIZE = 10_000;

/**
 * Currencies by id, remembered for good: a currency row is never updated or deleted, so what was read
 * once stays true. The events of paid conversions and the lists of claim checks show each row's
 * currency; they ask PostgreSQL only for currencies this process has not seen yet.
 */
export class KnownCurrencies {
  private readonly byId = new Map<string, CurrencyRecord>();

  constructor(private readonly currencies: CurrencyRepository) {}

  /** The project's currencies among `ids` (nulls and unknown ids are left out). */
  async of(projectId: string, ids: readonly (string | null)[]): Promise<ReadonlyMap<string, CurrencyRecord>> {
    const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
    const missing = wanted.filter((id) => this.byId.get(id)?.projectId !== projectId);
    if (missing.length > 0) {
      const rows = await this.currencies.byIds(projectId, missing);
      if (this.byId.size + rows.length > MEMO_SIZE) this.byId.clear();
      for (const currency of rows) this.byId.set(currency.id, currency);
    }
    const found = new Map<string, CurrencyRecord>();
    for (const id of wanted) {
      const currency = this.byId.get(id);
      if (currency?.projectId === projectId) found.set(id, currency);
    }
    return found;
  }
}
