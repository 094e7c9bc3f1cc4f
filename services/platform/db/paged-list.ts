import { type SelectQueryBuilder, sql } from 'kysely';
import type { Page } from '../../rules/pagination';

/** One page of a list and the size of the whole list: the one shape every repository's list answers. */
export interface PagedRecords<T> {
  records: T[];
  total: number;
}

/** A query of a page's rows: filtered, selected and ordered; readPage adds the limit and offset. */
interface PageRowsQuery<Row> {
  limit(limit: number): { offset(offset: number): { execute(): Promise<Row[]> } };
}

/**
 * Reads one page of a list and counts the whole list, in parallel. `matching` is the list's filter
 * (its FROM, joins and WHERE, nothing selected); `rows` selects and orders the page from it.
 */
export async function readPage<DB, TB extends keyof DB, Row>(
  matching: SelectQueryBuilder<DB, TB, object>,
  rows: (matching: SelectQueryBuilder<DB, TB, object>) => PageRowsQuery<Row>,
  page: Page,
): Promise<PagedRecords<Row>> {
  const [records, count] = await Promise.all([
    rows(matching).limit(page.pageSize).offset(page.offset).execute(),
    // The builder's generic tables hide the selection's type from the compiler; the row is { total }.
    matching
      .select(sql<string>`count(*)`.as('total'))
      .$castTo<{ total: string }>()
      .executeTakeFirstOrThrow(),
  ]);
  return { records, total: Number(count.total) };
}
