import type { Parameters } from './parameters';
import type { AffiliateFilters, AffiliateSort } from './query';
import { type Bounds, direction, limitOffset, type Shape, sortColumn, statusLiteral } from './statements';

/** One of the list's set filters: any of these segments (`audience`) or conversion names (`conversion`). */
export interface EntryFilter {
  kind: 'audience' | 'conversion';
  values: readonly string[];
}

/**
 * The set filters that hold, each a group of values (any of them matches; every group must hold):
 * the one with the fewest values first, as the one whose index ranges a page walks (a single value
 * is one range and has a kept count).
 */
export function entryFilters(filters: AffiliateFilters): EntryFilter[] {
  const groups: EntryFilter[] = [];
  if (filters.audienceId !== undefined) groups.push({ kind: 'audience', values: [filters.audienceId] });
  if ((filters.conversionNames ?? []).length > 0) groups.push({ kind: 'conversion', values: filters.conversionNames! });
  if ((filters.anyAudienceIds ?? []).length > 0) groups.push({ kind: 'audience', values: filters.anyAudienceIds! });
  return groups.sort((a, b) => a.values.length - b.values.length);
}

/**
 * The filtered affiliates' ids in the order asked, a page of them, from affiliate_filter_entries:
 * one range of the sort key's index per value of the first group, status and region checked in it,
 * the other groups by the entries' primary key. Several values: their ranges merged in order, an
 * affiliate in several of them once, each range read only as far as the page's end (`reach`).
 */
export function entryPageIds(parameters: Parameters, filters: AffiliateFilters, groups: EntryFilter[], sort: AffiliateSort, bounds: Bounds): Shape {
  const column = sortColumn(sort);
  const dir = direction(sort);
  const ranges = entryRanges(parameters, filters, groups);
  if (ranges.length === 1) {
    // One value: one range, planned alike for any value.
    return {
      text: `SELECT e.affiliate_id AS id FROM affiliate_filter_entries e WHERE ${ranges[0]!} ORDER BY e.${column} ${dir}, e.affiliate_id ${dir}${limitOffset(bounds)}`,
      stable: true,
    };
  }
  // Each value's first `reach` rows (an index range with a limit), merged: the first `reach` distinct
  // affiliates of the union are among them, so a page reads at most values x reach rows, never every match.
  const union = ranges
    .map(
      (where) =>
        `(SELECT e.${column} AS key, e.affiliate_id AS id FROM affiliate_filter_entries e WHERE ${where} ORDER BY e.${column} ${dir}, e.affiliate_id ${dir} LIMIT ${bounds.reach})`,
    )
    .join(' UNION ALL ');
  return {
    text: `SELECT d.id FROM (SELECT DISTINCT u.key, u.id FROM (${union}) u) d ORDER BY d.key ${dir}, d.id ${dir}${limitOffset(bounds)}`,
    stable: false,
  };
}

/**
 * How many affiliates the set filters (with status and region) match: the kept counts when one group
 * of one value filters, else a count of the matches of the first group's ranges (an index range per
 * value; the matches of several values counted once each).
 */
export function entryTotal(parameters: Parameters, filters: AffiliateFilters, groups: EntryFilter[]): Shape {
  const [first] = groups;
  if (groups.length === 1 && first!.values.length === 1) {
    let where = `project_id = ${parameters.project} AND kind = ${KINDS[first!.kind]} AND value = ${parameters.add(first!.values[0]!)}`;
    if (filters.status !== undefined) where += ` AND status = ${statusLiteral(filters.status)}`;
    if (filters.region !== undefined) where += ` AND region = ${parameters.add(filters.region)}`;
    return { text: `SELECT coalesce(sum(affiliates), 0) FROM affiliate_filter_counts WHERE ${where}`, stable: true };
  }
  // UNION: an affiliate in several of the values once.
  const matches = entryRanges(parameters, filters, groups)
    .map((where) => `SELECT e.affiliate_id AS id FROM affiliate_filter_entries e WHERE ${where}`)
    .join(' UNION ');
  return { text: `SELECT count(*) FROM (${matches}) matches`, stable: first!.values.length === 1 };
}

const KINDS: Record<EntryFilter['kind'], string> = { audience: "'audience'", conversion: "'conversion'" };

/**
 * The conditions of each value's range of the first group (project, kind, value, then status and
 * region checked in the index), the other groups each an EXISTS on the entries' primary key.
 */
function entryRanges(parameters: Parameters, filters: AffiliateFilters, [first, ...others]: EntryFilter[]): string[] {
  let shared = '';
  if (filters.status !== undefined) shared += ` AND e.status = ${statusLiteral(filters.status)}`;
  if (filters.region !== undefined) shared += ` AND e.region = ${parameters.add(filters.region)}`;
  for (const group of others) {
    shared += ` AND EXISTS (SELECT 1 FROM affiliate_filter_entries x WHERE x.affiliate_id = e.affiliate_id AND x.kind = ${KINDS[group.kind]} AND x.value = ANY(${parameters.add(group.values)}::text[]))`;
  }
  return first!.values.map(
    (value) => `e.project_id = ${parameters.project} AND e.kind = ${KINDS[first!.kind]} AND e.value = ${parameters.add(value)}${shared}`,
  );
}
