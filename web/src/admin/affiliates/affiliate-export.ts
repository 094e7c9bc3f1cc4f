import { csvLine } from '../../../../services/rules/csv-line';
import { AFFILIATE_CSV_COLUMNS } from './affiliate-csv';
import type { ApiRequest } from '../../api/client';
import type { AffiliateRow } from './columns';
import type { AffiliateFilters } from './filters';

/** The API's largest page. */
const PAGE_SIZE = 100;

/**
 * The affiliates the list's filters and sort select, as CSV: the columns and amounts of the CLI's
 * `referral export-affiliates` (./affiliate-csv.ts), so a file from either reads the same.
 * Paged as the CLI pages: an affiliate joining meanwhile shifts later pages, so a row seen twice is written once.
 */
export async function exportAffiliatesCsv(
  api: ApiRequest,
  projectId: string,
  filters: AffiliateFilters,
  onProgress: (done: number, total: number) => void,
  signal: AbortSignal,
): Promise<{ csv: string; rows: number }> {
  const lines = [csvLine(AFFILIATE_CSV_COLUMNS.map(([name]) => name))];
  const seen = new Set<string>();
  for (let page = 1; ; page += 1) {
    const body = await api('get', '/api/v1/projects/{projectId}/affiliates', {
      path: { projectId },
      query: { ...filters, page, page_size: PAGE_SIZE },
      signal,
    });
    for (const affiliate of body.results satisfies AffiliateRow[]) {
      if (seen.has(affiliate.id)) continue;
      seen.add(affiliate.id);
      lines.push(csvLine(AFFILIATE_CSV_COLUMNS.map(([, value]) => value(affiliate))));
    }
    onProgress(seen.size, body.total_results);
    if (body.results.length < body.page_size || page * body.page_size >= body.total_results) break;
  }
  return { csv: lines.join(''), rows: seen.size };
}
