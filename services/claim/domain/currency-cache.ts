import type { CurrencyRecord, CurrencyRepository } from '../repositories/currency.repository';

/**
 * Currencies by id for the events of paid conversions. A currency never changes once created (there
 * is no update), so what was read once stays true: a batch asks the database only for currencies this
 * process has not seen yet.
 */
export class CurrencyCache {
  private readonly known = new Map<string, CurrencyRecord>();

  constructor(private readonly currencies: CurrencyRepository) {}

  async of(projectId: string, ids: readonly (string | null)[]): Promise<ReadonlyMap<string, CurrencyRecord>> {
    const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
    const missing = wanted.filter((id) => this.known.get(id)?.projectId !== projectId);
    if (missing.length > 0) for (const currency of await this.currencies.byIds(projectId, missing)) this.known.set(currency.id, currency);
    return new Map(wanted.flatMap((id) => (this.known.has(id) ? [[id, this.known.get(id)!] as const] : [])));
  }
}
