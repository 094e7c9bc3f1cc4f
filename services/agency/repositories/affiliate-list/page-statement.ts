import { preparedShape } from '../../../platform/db/prepared-statements';
import type { Page } from '../../../rules/pagination';
import { entryFilters, entryPageIds, entryTotal } from './filter-entries';
import { Parameters } from './parameters';
import type { AffiliateFilters, AffiliateSort } from './query';
import { affiliatePageIds, affiliateTotal, type Bounds } from './statements';

/** From this offset on, a page past the middle of its list is read from the far end (below it, a page is cheap either way). */
export const NEAR_END_FROM_OFFSET = 200;

/** A statement as sent: its text and its parameters. */
export interface Statement {
  text: string;
  values: unknown[];
}

/** The row of pageStatement: the filters' total, and the page's ids in the order they were read. */
export interface PageIdsRow {
  total: bigint;
  /** The ids were read from the far end in the opposite order (the page past the middle): the caller reverses the page. */
  reversed: boolean;
  ids: string[];
}

/**
 * A page's ids and the filters' total in one statement (one round trip, where the total used to be
 * read first for a deep page, then its ids): the total first, then, past the middle of the list from
 * NEAR_END_FROM_OFFSET on, the page read from the far end in the opposite order (the deepest page then
 * costs what the middle one does), else from the start; only the branch taken runs. The ids come from
 * one index-driven range: affiliates by joined_at, affiliate_metrics by the metric, the set filters'
 * entries by either. Sent as a prepared statement when its parts plan alike for any values.
 */
export function pageStatement(projectId: string, filters: AffiliateFilters, page: Page, sort: AffiliateSort): Statement {
  const parameters = new Parameters(projectId);
  const groups = filters.q === undefined ? entryFilters(filters) : [];
  const ids = (order: AffiliateSort, bounds: Bounds) =>
    groups.length > 0 ? entryPageIds(parameters, filters, groups, order, bounds) : affiliatePageIds(parameters, filters, order, bounds);
  const total = groups.length > 0 ? entryTotal(parameters, filters, groups) : affiliateTotal(parameters, filters);
  // The page's range as columns of t, not parameters in the ranges' LIMITs: PostgreSQL planned a
  // prepared shape anew for every call (a custom plan for the values, planning ~0.2 ms), since a
  // LIMIT it cannot see is costed as a tenth of the rows and the generic plan never looked cheaper;
  // with the range out of its sight in every plan, the generic plan is kept after five calls.
  const range = `${parameters.add(page.offset)}::bigint AS off, ${parameters.add(page.pageSize)}::bigint AS size`;
  const offset = 't.off';
  const size = 't.size';
  const forward = ids(sort, { limit: size, offset, reach: `(${offset} + ${size})` });
  // Rows after the page (t.total is the filters' total): the far end's range is the page's mirror.
  const fromEnd = `(t.total - ${offset} - ${size})`;
  const nearEnd = `${offset} >= ${NEAR_END_FROM_OFFSET} AND ${fromEnd} < ${offset}`;
  // A search's matches are all sorted whichever end is read: the far end saves nothing there.
  const reversible = filters.q === undefined;
  const backward = reversible
    ? ids(
        { by: sort.by, order: sort.order === 'asc' ? 'desc' : 'asc' },
        { limit: `(${size} + least(0, ${fromEnd}))`, offset: `greatest(0, ${fromEnd})`, reach: `(t.total - ${offset})` },
      )
    : undefined;
  const text =
    `SELECT t.total, ${reversible ? `(${offset} < t.total AND ${nearEnd})` : 'false'} AS reversed, ` +
    `CASE WHEN ${offset} >= t.total THEN ARRAY[]::uuid[]${backward ? ` WHEN ${nearEnd} THEN ARRAY(${backward.text})` : ''} ELSE ARRAY(${forward.text}) END AS ids ` +
    // OFFSET 0: the total is a column computed once, not a subquery copied into every reference
    // (and the range's values stay out of the plan).
    `FROM (SELECT (${total.text})::bigint AS total, ${range} OFFSET 0) t`;
  const stable = total.stable && forward.stable && (backward?.stable ?? true);
  return { text: stable ? preparedShape('agency_affiliate_list', text) : text, values: parameters.values };
}
