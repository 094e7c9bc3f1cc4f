import { type ExpressionBuilder, type Kysely, sql, type SelectQueryBuilder } from 'kysely';
import type { AgencyDatabase } from '../database';
import type { AffiliateFilters, AffiliateSort } from './affiliate.repository';

/** One of the list's set filters: any of these segments (`audience`) or conversion names (`conversion`). */
export interface EntryFilter {
  kind: 'audience' | 'conversion';
  values: readonly string[];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the list's id queries, as listPage takes them
type PageIds = SelectQueryBuilder<any, any, { id: string }>;
type Entries = ExpressionBuilder<AgencyDatabase & { e: AgencyDatabase['affiliate_filter_entries'] }, 'e'>;

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
 * The filtered affiliates' ids in the order asked (limit and offset are the
 * caller's), from affiliate_filter_entries: one range of the sort key's index per value of the first
 * group, status and region checked in it, the other groups by the entries' primary key. Several
 * values: their ranges merged in order, an affiliate in several of them once; `reach` is the page's
 * offset + limit (how far into the order it reads).
 */
export function entryPageIds(db: Kysely<AgencyDatabase>, projectId: string, filters: AffiliateFilters, [first, ...others]: EntryFilter[], sort: AffiliateSort, reach: number): PageIds {
  const range = (value: string) => {
    let query = db
      .selectFrom('affiliate_filter_entries as e')
      .where('e.project_id', '=', projectId)
      .where('e.kind', '=', first!.kind)
      .where('e.value', '=', value);
    if (filters.status !== undefined) query = query.where('e.status', '=', filters.status);
    if (filters.region !== undefined) query = query.where('e.region', '=', filters.region);
    for (const group of others) query = query.where((eb) => eb.exists(inGroup(eb, group)));
    return query;
  };
  if (first!.values.length === 1) {
    return range(first!.values[0]!)
      .select('e.affiliate_id as id')
      .orderBy(`e.${sort.by}`, sort.order)
      .orderBy('e.affiliate_id', sort.order);
  }
  // Each value's first `reach` rows (an index range with a limit), merged: the first `reach` distinct
  // affiliates of the union are among them, so a page reads at most values x reach rows, never every match.
  const key = sql.ref(`e.${sort.by}`);
  const ranges = first!.values.map(
    (value) => sql`(${range(value).select([key.as('key'), 'e.affiliate_id as id']).orderBy(`e.${sort.by}`, sort.order).orderBy('e.affiliate_id', sort.order).limit(reach)})`,
  );
  const distinct = db
    .selectFrom(sql<{ key: string; id: string }>`(${sql.join(ranges, sql` UNION ALL `)})`.as('u'))
    .select(['u.key', 'u.id'])
    .distinct();
  return db
    .selectFrom(distinct.as('d'))
    .select('d.id')
    .orderBy('d.key', sort.order)
    .orderBy('d.id', sort.order);
}

/**
 * How many affiliates the set filters (with status and region) match: the kept counts when one group
 * of one value filters, else a count of the page query's matches (the first group's ranges).
 */
export async function entryTotal(db: Kysely<AgencyDatabase>, projectId: string, filters: AffiliateFilters, groups: EntryFilter[]): Promise<number> {
  const [first] = groups;
  if (groups.length === 1 && first!.values.length === 1) {
    let kept = db
      .selectFrom('affiliate_filter_counts')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<bigint>('affiliates'), sql<bigint>`0`).as('total'))
      .where('project_id', '=', projectId)
      .where('kind', '=', first!.kind)
      .where('value', '=', first!.values[0]!);
    if (filters.status !== undefined) kept = kept.where('status', '=', filters.status);
    if (filters.region !== undefined) kept = kept.where('region', '=', filters.region);
    return Number((await kept.executeTakeFirstOrThrow()).total);
  }
  // Several values or groups: a count of the first group's matches (an index range per value; the
  // matches of several values counted once each).
  const ids = entryPageIds(db, projectId, filters, groups, { by: 'joined_at', order: 'asc' }, Number.MAX_SAFE_INTEGER).clearOrderBy();
  const row = await db
    .selectFrom(ids.as('matches'))
    .select((eb) => eb.fn.countAll<bigint>().as('total'))
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

/** The affiliate (`e`) has an entry for one of the group's values (the entries' primary key). */
function inGroup(eb: Entries, group: EntryFilter) {
  return eb
    .selectFrom('affiliate_filter_entries as x')
    .select(sql`1`.as('one'))
    .whereRef('x.affiliate_id', '=', 'e.affiliate_id')
    .where('x.kind', '=', group.kind)
    .where('x.value', 'in', [...group.values]);
}
