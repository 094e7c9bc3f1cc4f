import type { ReactNode } from 'react';
import { type ListPosition, Pager } from './Pager';
import { ScrollTable, type TableColumn } from './ScrollTable';
import { ListStates } from './states';

/** What PagedTable reads of a list query (a useQuery result over a page of a list of the API). */
interface PageQuery<T> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  refetch(): Promise<unknown>;
  data: (ListPosition & { results: readonly T[] }) | undefined;
}

/**
 * A page of a list, the same way on every list screen: its loading, error and empty states, then
 * its rows in a ScrollTable (one `row` an item) and the pager under them.
 */
export function PagedTable<T>({
  query,
  loading,
  empty,
  table,
  row,
  pagerLabel,
  onPage,
}: {
  query: PageQuery<T>;
  loading: string;
  empty: ReactNode;
  table: { label: string; caption: ReactNode; columns: readonly TableColumn[] };
  row(item: T): ReactNode;
  pagerLabel: string;
  onPage(page: number): void;
}) {
  return (
    <>
      <ListStates query={query} loading={loading} empty={empty} />
      {query.data && query.data.results.length > 0 ? (
        <>
          <ScrollTable label={table.label} caption={table.caption} columns={table.columns}>
            {query.data.results.map(row)}
          </ScrollTable>
          <Pager label={pagerLabel} list={query.data} onPage={onPage} />
        </>
      ) : null}
    </>
  );
}
