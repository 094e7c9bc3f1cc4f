import { formatDecimal } from './format';

/** The page a list screen shows, from its URL's `?page=` (1 when absent or not a page number). */
export function pageFromUrl(params: URLSearchParams): number {
  return Math.max(1, Number(params.get('page')) || 1);
}

/** Where a page stands in its list, as every list of the API answers it. */
export interface ListPosition {
  page: number;
  page_size: number;
  total_results: number;
}

/** Previous / next over a `{ total_results, page, page_size }` list. */
export function Pager({ list, onPage, label }: { list: ListPosition; onPage(page: number): void; label: string }) {
  const { page, page_size: pageSize, total_results: total } = list;
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" onClick={() => onPage(page - 1)} disabled={page <= 1}>
        Previous
      </button>
      <span>
        Page {page} of {pages} ({formatDecimal(total)} in all)
      </span>
      <button type="button" onClick={() => onPage(page + 1)} disabled={page >= pages}>
        Next
      </button>
    </nav>
  );
}

/** The page sizes a queue offers (10/20/50/100), as a labelled select. */
export const PAGE_SIZES = [10, 20, 50, 100];

export function PageSizeSelect({ id, value, onChange }: { id: string; value: number; onChange(size: number): void }) {
  return (
    <>
      <label htmlFor={id}>Per page</label>
      <select id={id} value={value} onChange={(event) => onChange(Number(event.target.value))}>
        {PAGE_SIZES.map((size) => (
          <option key={size} value={size}>
            {size}
          </option>
        ))}
      </select>
    </>
  );
}
