import type { ReactNode } from 'react';
import { ApiError } from '../api/client';

/** Loading, error and empty states, the same on every screen. */

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="state state-loading" role="status" aria-live="polite">
      {label}
    </p>
  );
}

/**
 * The API's own message (plain words), with its field violations when it names any. With `onRetry`
 * (a failed load), a Retry button asks again: the person need not reload the page.
 */
export function ErrorMessage({
  error,
  title,
  showDetails = true,
  onRetry,
}: {
  error: unknown;
  title?: string;
  showDetails?: boolean;
  onRetry?: () => void;
}) {
  const message = error instanceof Error ? error.message : 'Something went wrong.';
  const details = error instanceof ApiError && showDetails ? error.details : [];
  return (
    <div className="state state-error" role="alert">
      {title ? <strong>{title}: </strong> : null}
      {message}
      {onRetry ? (
        <>
          {' '}
          <button type="button" onClick={onRetry}>
            Retry
          </button>
        </>
      ) : null}
      {details.length > 0 ? (
        <ul>
          {details.map((detail) => (
            <li key={`${detail.field}:${detail.reason}`}>
              <code>{detail.field}</code>: {detail.reason}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="state state-empty">{children}</p>;
}

/** What ListStates reads of a list query (a useQuery result over a list of the API). */
interface ListQuery {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: { results: readonly unknown[] } | undefined;
}

/** A list screen's loading, error and empty states, the same on every screen; its rows follow when it has some. */
export function ListStates({ query, loading, empty }: { query: ListQuery; loading: string; empty: ReactNode }) {
  return (
    <>
      {query.isPending ? <Loading label={loading} /> : null}
      {query.isError ? <ErrorMessage error={query.error} /> : null}
      {query.data && query.data.results.length === 0 ? <Empty>{empty}</Empty> : null}
    </>
  );
}
