import type { Kysely } from 'kysely';
import type { ClaimDatabase } from '../database';
import type { CurrencySummary } from './movement.repository';

/** Enough currencies for every project of a deployment; past it the memo starts over. */
const MEMO_SIZE = 10_000;

/**
 * Currencies by id, as lists show them. A currency row is never updated or deleted, so a summary
 * read once is kept for good: a list of claim checks asks PostgreSQL only for the checks.
 */
export class CurrencySummaries {
  private readonly byId = new Map<string, CurrencySummary>();

  constructor(private readonly db: Kysely<ClaimDatabase>) {}

  /** Every currency of `ids` (which must exist: they come from rows that reference them). */
  async of(ids: readonly string[]): Promise<Map<string, CurrencySummary>> {
    const found = new Map<string, CurrencySummary>();
    const missing: string[] = [];
    for (const id of ids) {
      const known = this.byId.get(id);
      if (known) found.set(id, known);
      else if (!missing.includes(id)) missing.push(id);
    }
    if (missing.length === 0) return found;
    const rows = await this.db
      .selectFrom('currencies')
      .select(['id', 'chain_id', 'address', 'name', 'decimals', 'type'])
      .where('id', 'in', missing)
      .execute();
    if (this.byId.size + rows.length > MEMO_SIZE) this.byId.clear();
    for (const row of rows) {
      const summary: CurrencySummary = { id: row.id, chainId: row.chain_id, address: row.address, name: row.name, decimals: row.decimals, type: row.type };
      this.byId.set(row.id, summary);
      found.set(row.id, summary);
    }
    for (const id of missing) if (!found.has(id)) throw new Error(`currency ${id} of a listed row does not exist`);
    return found;
  }
}
