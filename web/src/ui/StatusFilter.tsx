/** The status filter's value for "any status" (the API's list without `status`), kept in the URL as the others are. */
export const ANY_STATUS = 'any';

export interface StatusChoice<S extends string> {
  value: S;
  label: string;
}

/** The status a list's URL asks for: `any`, one of `statuses`, else `fallback` (the list's default view). */
export function statusFromUrl<S extends string>(param: string | null, statuses: ReadonlyArray<StatusChoice<S>>, fallback: S): S | typeof ANY_STATUS {
  return param === ANY_STATUS ? ANY_STATUS : (statuses.find((entry) => entry.value === param)?.value ?? fallback);
}

/** A list's status filter (label and select, as PageSizeSelect): the list's statuses, then "Any status". */
export function StatusFilter<S extends string>({
  id,
  value,
  statuses,
  onChange,
}: {
  id: string;
  value: S | typeof ANY_STATUS;
  statuses: ReadonlyArray<StatusChoice<S>>;
  onChange(status: string): void;
}) {
  return (
    <>
      <label htmlFor={id}>Status</label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value)}>
        {statuses.map((entry) => (
          <option key={entry.value} value={entry.value}>
            {entry.label}
          </option>
        ))}
        <option value={ANY_STATUS}>Any status</option>
      </select>
    </>
  );
}
