/** Previous / next over a `{ total_results, page, page_size }` list. */
export function Pager({
  page,
  pageSize,
  total,
  onPage,
  label,
}: {
  page: number;
  pageSize: number;
  total: number;
  onPage(page: number): void;
  label: string;
}) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" onClick={() => onPage(page - 1)} disabled={page <= 1}>
        Previous
      </button>
      <span>
        Page {page} of {pages} ({total.toLocaleString('en-US')} in all)
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
