import { CompiledQuery, type Kysely } from 'kysely';
import type { Page } from '../../../rules/pagination';
import type { AgencyDatabase } from '../../database';
import { type AffiliateListRecord, listPage } from './page-rows';
import { type PageIdsRow, pageStatement } from './page-statement';
import { type AffiliateFilters, type AffiliateSort, DEFAULT_AFFILIATE_SORT } from './query';

/**
 * The affiliate list, its one entry point: what it is asked (./query.ts), what an item holds
 * (./page-rows.ts), and listAffiliates. Inside: the page's ids and total in one statement
 * (./page-statement.ts, from ./statements.ts and ./filter-entries.ts, placeholders numbered by
 * ./parameters.ts), then the page's rows. Nothing here imports the affiliate repository, which
 * runs the list: the records they share are ../affiliate-record.ts.
 */
export type { AffiliateListRecord } from './page-rows';
export { type AffiliateFilters, type AffiliateSort, type AffiliateSortKey, DEFAULT_AFFILIATE_SORT } from './query';

/**
 * A page in the order asked (newest first by default), each affiliate with its codes, figures,
 * earnings, master relation and tier protection in force at `now`: one statement for the page's ids
 * and the total (pageStatement: one index-driven range, a page past the middle read from the far
 * end), one for the page's rows (listPage).
 */
export async function listAffiliates(
  db: Kysely<AgencyDatabase>,
  projectId: string,
  filters: AffiliateFilters,
  page: Page,
  sort: AffiliateSort = DEFAULT_AFFILIATE_SORT,
  now: Date = new Date(),
): Promise<{ records: AffiliateListRecord[]; total: number }> {
  const statement = pageStatement(projectId, filters, page, sort);
  const { rows } = await db.executeQuery<PageIdsRow>(CompiledQuery.raw(statement.text, statement.values));
  const { total, reversed, ids } = rows[0]!;
  const records = await listPage(db, projectId, ids, now);
  if (reversed) records.reverse();
  return { records, total: Number(total) };
}
