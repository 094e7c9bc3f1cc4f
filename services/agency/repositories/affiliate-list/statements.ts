import type { AffiliateStatus } from '../../domain/vocabulary';
import type { Parameters } from './parameters';
import type { AffiliateFilters, AffiliateSort, AffiliateSortKey } from './query';

/**
 * The affiliate list's id and count statements as SQL text, written directly: the list runs them for
 * every page, and building and compiling them with Kysely cost the agency more CPU than anything
 * else in a page. One text per shape (which filters are set, the sort), every value a
 * parameter except those that choose the plan (a status: its partial indexes); a shape whose plan is
 * one index range whatever the values is `stable` (page-statement.ts prepares those). Every
 * placeholder comes from the statement's Parameters (./parameters.ts), the project's included.
 */
export interface Shape {
  text: string;
  /** Planned alike for any values of its parameters: a generic plan is as good as each call's own. */
  stable: boolean;
}

/**
 * A page's range of the order as SQL expressions (parameters, or arithmetic on the total when read
 * from the far end): how many, from where, and how far into the order (offset + limit).
 */
export interface Bounds {
  limit: string;
  offset: string;
  reach: string;
}

const SORT_COLUMNS: Record<AffiliateSortKey, string> = {
  joined_at: 'joined_at',
  volume_usd: 'volume_usd',
  revenue_usd: 'revenue_usd',
  conversions: 'conversions',
  end_users: 'end_users',
  referred_volume_usd: 'referred_volume_usd',
  clicks: 'clicks',
};
const STATUSES: Record<AffiliateStatus, string> = { active: "'active'", flagged: "'flagged'", suspended: "'suspended'" };

/** The sort's column (from the fixed list: never text from a request). */
export const sortColumn = (sort: AffiliateSort): string => SORT_COLUMNS[sort.by];
/** ASC or DESC, from the fixed pair. */
export const direction = (sort: AffiliateSort): string => (sort.order === 'asc' ? 'ASC' : 'DESC');
/** The status as a literal of the text (three values; the suspended and the flagged have partial indexes a parameter could not choose). */
export const statusLiteral = (status: AffiliateStatus): string => STATUSES[status];
/** The page's range. */
export const limitOffset = (bounds: Bounds): string => ` LIMIT ${bounds.limit} OFFSET ${bounds.offset}`;

/** LIKE's wildcards taken literally, for prefix searches. */
const escapeLike = (value: string) => value.replace(/[\\%_]/g, (character) => `\\${character}`);

/**
 * The list's filters on `a` (the affiliates), each one index-backed or an EXISTS on a primary key:
 * the conditions after `a.project_id = <the project>`.
 */
export function affiliateConditions(parameters: Parameters, filters: AffiliateFilters): string {
  let conditions = '';
  if (filters.status !== undefined) conditions += ` AND a.status = ${statusLiteral(filters.status)}`;
  if (filters.region !== undefined) conditions += ` AND a.region = ${parameters.add(filters.region)}`;
  if (filters.q !== undefined) {
    const prefix = parameters.add(`${escapeLike(filters.q)}%`);
    const lowerPrefix = parameters.add(`${escapeLike(filters.q.toLowerCase())}%`);
    conditions += ` AND (a.identifier LIKE ${prefix} OR lower(a.name) LIKE ${lowerPrefix})`;
  }
  // Members of the segment, and of any of the segments: a join on the membership projection's key.
  for (const segments of [filters.audienceId === undefined ? undefined : [filters.audienceId], filters.anyAudienceIds]) {
    if (segments !== undefined && segments.length > 0) {
      conditions +=
        ` AND EXISTS (SELECT 1 FROM audience_memberships am WHERE am.segment_id = ANY(${parameters.add(segments)}::uuid[]) AND am.project_id = a.project_id` +
        ' AND am.identifier_type = a.identifier_type AND am.identifier = a.identifier AND am.present)';
    }
  }
  // With at least one conversion of these names: an EXISTS on the per-name counts' primary key.
  if (filters.conversionNames !== undefined && filters.conversionNames.length > 0) {
    conditions += ` AND EXISTS (SELECT 1 FROM affiliate_conversion_counts cc WHERE cc.affiliate_id = a.id AND cc.project_id = ${parameters.project} AND cc.name = ANY(${parameters.add(filters.conversionNames)}::text[]))`;
  }
  return conditions;
}

/**
 * The ids of the filtered affiliates in the order asked, without the set filters' entries (see
 * entryPageIds): on `a` by joined_at or with a search, else on `m` (affiliate_metrics) by the metric.
 */
export function affiliatePageIds(parameters: Parameters, filters: AffiliateFilters, sort: AffiliateSort, bounds: Bounds): Shape {
  const column = sortColumn(sort);
  const dir = direction(sort);
  if (filters.q !== undefined) {
    const where = `a.project_id = ${parameters.project}${affiliateConditions(parameters, filters)}`;
    // The search's matches first (its prefix indexes; OFFSET 0 keeps the planner from walking the sort's
    // index over every affiliate and probing each: 5,000 rows read for a top page when it guessed the
    // matches many), then sorted; for a metric each match's value by its metrics row's key (a hash join read all 100,000 rows).
    const text =
      sort.by === 'joined_at'
        ? `SELECT f.id FROM (SELECT a.id, a.joined_at FROM affiliates a WHERE ${where} OFFSET 0) f ORDER BY f.joined_at ${dir}, f.id ${dir}`
        : `SELECT f.id FROM (SELECT a.id, (SELECT m.${column} FROM affiliate_metrics m WHERE m.affiliate_id = a.id) AS key FROM affiliates a WHERE ${where} OFFSET 0) f ` +
          `WHERE f.key IS NOT NULL ORDER BY f.key ${dir}, f.id ${dir}`;
    // Not stable: a generic plan cannot use the prefix indexes (the pattern is a parameter).
    return { text: text + limitOffset(bounds), stable: false };
  }
  if (sort.by === 'joined_at') {
    const where = `a.project_id = ${parameters.project}${affiliateConditions(parameters, filters)}`;
    return { text: `SELECT a.id FROM affiliates a WHERE ${where} ORDER BY a.joined_at ${dir}, a.id ${dir}${limitOffset(bounds)}`, stable: true };
  }
  // Every affiliate has its metrics row (created with it), with copies of its status and region (in
  // the metric's indexes: by region, of the suspended (0009) and of the flagged (0018)): a page is one range of an index.
  let where = `m.project_id = ${parameters.project}`;
  if (filters.status !== undefined) where += ` AND m.status = ${statusLiteral(filters.status)}`;
  if (filters.region !== undefined) where += ` AND m.region = ${parameters.add(filters.region)}`;
  return {
    text: `SELECT m.affiliate_id AS id FROM affiliate_metrics m WHERE ${where} ORDER BY m.${column} ${dir}, m.affiliate_id ${dir}${limitOffset(bounds)}`,
    stable: true,
  };
}

/** How many affiliates match without set filters: the kept counts (per status, per status and region); with a search, a count of the matches. */
export function affiliateTotal(parameters: Parameters, filters: AffiliateFilters): Shape {
  if (filters.q !== undefined)
    return {
      text: `SELECT count(*) FROM affiliates a WHERE a.project_id = ${parameters.project}${affiliateConditions(parameters, filters)}`,
      stable: false,
    };
  const status = filters.status === undefined ? '' : ` AND status = ${statusLiteral(filters.status)}`;
  return {
    text:
      filters.region === undefined
        ? `SELECT coalesce(sum(affiliates), 0) FROM affiliate_counts WHERE project_id = ${parameters.project}${status}`
        : `SELECT coalesce(sum(affiliates), 0) FROM affiliate_region_counts WHERE project_id = ${parameters.project} AND region = ${parameters.add(filters.region)}${status}`,
    stable: true,
  };
}
