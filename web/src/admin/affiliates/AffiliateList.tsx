import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { type ChangeEvent, type CSSProperties, type FormEvent, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { Empty, LoadError, Loading } from '../../ui/states';
import { useProject } from '../session';
import { CONVERSION_RATE_HELP, formatCount } from '../../ui/format';
import { affiliateColumns, NUMERIC_COLUMNS, SORT_KEY_OF_COLUMN } from './columns';
import { type AffiliateFilters, filtersFromUrl, filtersToUrl, SORT_COLUMNS } from './filters';
import { AudienceOptions } from '../audiences/AudienceOptions';
import { AffiliateExport } from './AffiliateExport';
import { FilterChips } from './FilterChips';

/** The API's largest page: the list loads pages of it as the rows scroll into view. */
const PAGE_SIZE = 100;
const ROW_HEIGHT = 44;
const GRID_COLUMNS = 'minmax(14rem, 2fr) 6rem 5rem 7rem 9rem 9rem repeat(2, 8rem) 7rem 6rem 6rem 8rem 9rem 10rem';

/**
 * Every affiliate of the project, with every filter, sort and metric of the API, kept in the URL.
 * Rows are virtualised (only those on screen are in the DOM) and fetched page by page as the
 * scroll nears the end, so a list of 100,000 scrolls as smoothly as one of 100.
 */
export function AffiliateList() {
  const { projectId, api } = useProject();
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => filtersFromUrl(params), [params]);
  const setFilters = (next: AffiliateFilters) => setParams(filtersToUrl(next), { replace: true });

  const list = useInfiniteQuery({
    queryKey: ['affiliates', projectId, filters],
    queryFn: ({ pageParam, signal }) =>
      api('get', '/api/v1/projects/{projectId}/affiliates', {
        path: { projectId },
        query: { ...filters, page: pageParam, page_size: PAGE_SIZE },
        signal,
      }),
    initialPageParam: 1,
    getNextPageParam: (last) => (last.page * last.page_size < last.total_results ? last.page + 1 : undefined),
  });
  const rows = useMemo(() => list.data?.pages.flatMap((page) => page.results) ?? [], [list.data]);
  const total = list.data?.pages[0]?.total_results ?? 0;

  const table = useReactTable({ data: rows, columns: affiliateColumns, getCoreRowModel: getCoreRowModel(), manualSorting: true });
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 10 });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items[items.length - 1]?.index ?? -1;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = list;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && lastIndex >= rows.length - 20) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage, lastIndex, rows.length]);

  const sortBy = filters.sort_by ?? 'joined_at';
  const order = filters.order ?? 'desc';
  const toggleSort = (key: (typeof SORT_COLUMNS)[number]['value']) =>
    setFilters({ ...filters, sort_by: key, order: sortBy === key && order === 'desc' ? 'asc' : 'desc' });

  return (
    <section aria-labelledby="affiliates-title">
      <div className="page-head">
        <h1 id="affiliates-title">Affiliates</h1>
        <Link className="button" to="new">
          New affiliate
        </Link>
      </div>
      <FilterForm filters={filters} onChange={setFilters} />
      <AffiliateExport filters={filters} />
      {list.isPending ? <Loading label="Loading affiliates…" /> : null}
      {list.isError ? <LoadError query={list} /> : null}
      {list.data && rows.length === 0 ? <Empty>No affiliate matches these filters.</Empty> : null}
      {rows.length > 0 ? (
        <>
          <p className="count" aria-live="polite">
            {formatCount(total, 'affiliate')}
          </p>
          <p className="help" data-testid="conversion-rate-help">
            {CONVERSION_RATE_HELP}
          </p>
          <div ref={scroller} className="virtual-scroll" tabIndex={0} role="region" aria-label="Affiliate list, scrollable">
            <div
              role="table"
              aria-rowcount={total + 1}
              aria-label="Affiliates"
              className="grid-table"
              style={{ '--grid-columns': GRID_COLUMNS } as CSSProperties}
            >
              <div role="rowgroup" className="grid-head">
                {table.getHeaderGroups().map((group) => (
                  <div role="row" aria-rowindex={1} className="grid-row" key={group.id}>
                    {group.headers.map((header) => {
                      const sortKey = SORT_KEY_OF_COLUMN[header.column.id];
                      const sorted = sortKey && sortKey === sortBy ? (order === 'asc' ? 'ascending' : 'descending') : undefined;
                      return (
                        <div
                          role="columnheader"
                          aria-sort={sorted ?? (sortKey ? 'none' : undefined)}
                          key={header.id}
                          className={NUMERIC_COLUMNS.has(header.column.id) ? 'number' : undefined}
                        >
                          {sortKey ? (
                            <button type="button" className="sort-button" onClick={() => toggleSort(sortKey)}>
                              {flexRender(header.column.columnDef.header, header.getContext())}
                              <span aria-hidden="true">{sorted === 'ascending' ? ' ▲' : sorted === 'descending' ? ' ▼' : ''}</span>
                            </button>
                          ) : (
                            flexRender(header.column.columnDef.header, header.getContext())
                          )}
                        </div>
                      );
                    })}
                  </div>
                ))}
              </div>
              <div role="rowgroup" className="grid-body" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
                {items.map((item) => {
                  const row = table.getRowModel().rows[item.index];
                  if (!row) return null;
                  return (
                    <div
                      role="row"
                      aria-rowindex={item.index + 2}
                      key={row.id}
                      className="grid-row"
                      style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
                    >
                      {row.getVisibleCells().map((cell) => (
                        <div role="cell" key={cell.id} className={NUMERIC_COLUMNS.has(cell.column.id) ? 'number' : undefined}>
                          {flexRender(cell.column.columnDef.cell, cell.getContext())}
                        </div>
                      ))}
                    </div>
                  );
                })}
              </div>
            </div>
          </div>
          {isFetchingNextPage ? <Loading label="Loading more affiliates…" /> : null}
        </>
      ) : null}
    </section>
  );
}

/** The text filters, as typed and not yet applied. */
type Drafts = Record<'q' | 'region' | 'conversions', string>;

/**
 * The filters as a form: text filters apply on submit, choices at once, and a choice applies what is
 * typed beside it too (the list always matches the form; nothing typed is lost). Each lands in the URL.
 */
function FilterForm({ filters, onChange }: { filters: AffiliateFilters; onChange(next: AffiliateFilters): void }) {
  const { projectId, api } = useProject();
  const audiences = useQuery({
    queryKey: ['audiences', projectId, 'all'],
    queryFn: ({ signal }) => api('get', '/api/v1/projects/{projectId}/audiences', { path: { projectId }, query: { page_size: 100 }, signal }),
  });
  const [drafts, setDrafts] = useState<Drafts>(() => draftsOf(filters));
  const [audienceIds, setAudienceIds] = useState<string[]>(() => filters.audience_ids?.split(',') ?? []);
  // The applied text changes from outside the fields too (Clear, a removed chip, the browser's back): the fields follow it.
  const { q, region, conversions, audience_ids } = filters;
  useEffect(() => setDrafts(draftsOf({ q, region, conversions })), [q, region, conversions]);
  useEffect(() => setAudienceIds(audience_ids?.split(',') ?? []), [audience_ids]);

  const typed = (): AffiliateFilters => ({
    q: drafts.q.trim() || undefined,
    region: drafts.region.trim() || undefined,
    conversions: drafts.conversions.trim() || undefined,
    audience_ids: audienceIds.length ? audienceIds.join(',') : undefined,
  });
  const choose = (choice: AffiliateFilters) => onChange({ ...filters, ...typed(), ...choice });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onChange({ ...filters, ...typed() });
  };
  const text = (name: keyof Drafts) => ({
    value: drafts[name],
    onChange: (event: ChangeEvent<HTMLInputElement>) => setDrafts({ ...drafts, [name]: event.target.value }),
  });
  const audienceOptions = audiences.data?.results ?? [];
  return (
    <form className="filters" onSubmit={submit} aria-label="Filter affiliates">
      <div>
        <label htmlFor="filter-q">Identifier or name starts with</label>
        <input id="filter-q" type="search" {...text('q')} />
      </div>
      <div>
        <label htmlFor="filter-status">Status</label>
        <select
          id="filter-status"
          value={filters.status ?? ''}
          onChange={(event) => choose({ status: (event.target.value || undefined) as AffiliateFilters['status'] })}
        >
          <option value="">Any</option>
          <option value="active">Active</option>
          <option value="flagged">Flagged</option>
          <option value="suspended">Suspended</option>
        </select>
      </div>
      <div>
        <label htmlFor="filter-region">Region (country code)</label>
        <input id="filter-region" {...text('region')} maxLength={2} size={4} />
      </div>
      <div>
        <label htmlFor="filter-audience">Member of</label>
        <select id="filter-audience" value={filters.audience ?? ''} onChange={(event) => choose({ audience: event.target.value || undefined })}>
          <option value="">Any audience</option>
          <AudienceOptions audiences={audienceOptions} />
        </select>
      </div>
      <div>
        <label htmlFor="filter-audience-ids">Member of any of</label>
        <select
          id="filter-audience-ids"
          multiple
          value={audienceIds}
          onChange={(event) => setAudienceIds([...event.target.selectedOptions].map((option) => option.value))}
          size={Math.min(4, Math.max(2, audienceOptions.length))}
        >
          <AudienceOptions audiences={audienceOptions} />
        </select>
      </div>
      <div>
        <label htmlFor="filter-conversions">Converted with (names, comma separated)</label>
        <input id="filter-conversions" {...text('conversions')} />
      </div>
      <div>
        <label htmlFor="filter-sort">Sort by</label>
        <select
          id="filter-sort"
          value={filters.sort_by ?? 'joined_at'}
          onChange={(event) => choose({ sort_by: event.target.value as AffiliateFilters['sort_by'] })}
        >
          {SORT_COLUMNS.map((column) => (
            <option key={column.value} value={column.value}>
              {column.label}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="filter-order">Order</label>
        <select
          id="filter-order"
          value={filters.order ?? 'desc'}
          onChange={(event) => choose({ order: event.target.value as AffiliateFilters['order'] })}
        >
          <option value="desc">Highest / newest first</option>
          <option value="asc">Lowest / oldest first</option>
        </select>
      </div>
      <div className="filter-actions">
        <button type="submit">Apply filters</button>
        <button type="button" onClick={() => onChange({})}>
          Clear
        </button>
      </div>
      <FilterChips filters={filters} audiences={audienceOptions} onChange={onChange} />
    </form>
  );
}

const draftsOf = (filters: AffiliateFilters): Drafts => ({
  q: filters.q ?? '',
  region: filters.region ?? '',
  conversions: filters.conversions ?? '',
});
