import type { ReactNode } from 'react';
import { errorSentence, listedViolations, type ShownAt, violationSentence } from './error-messages';

/** Loading, error and empty states, the same on every screen. */

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="state state-loading" role="status" aria-live="polite">
      {label}
    </p>
  );
}

/**
 * An error in a sentence (error-messages.ts), with the fields it names listed in words, but for
 * those the form shows at their inputs (`shownAt`, or every field with `showDetails` off): for them
 * the banner only points at the inputs, so nothing is said twice. With `onRetry` (a failed load), a
 * Retry button asks again: the person need not reload the page.
 */
export function ErrorMessage({
  error,
  title,
  showDetails = true,
  shownAt = showDetails ? undefined : () => true,
  onRetry,
}: {
  error: unknown;
  title?: string;
  showDetails?: boolean;
  shownAt?: ShownAt;
  onRetry?: () => void;
}) {
  const details = listedViolations(error, { shownAt });
  return (
    <div className="state state-error" role="alert">
      {title ? <strong>{title}: </strong> : null}
      {errorSentence(error, { shownAt })}
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
            <li key={`${detail.field}:${detail.reason}`}>{violationSentence(detail)}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** What LoadError reads of a query (a useQuery or useInfiniteQuery result). */
interface FailedQuery {
  error: unknown;
  refetch(): Promise<unknown>;
}

/** A failed load: its error in a sentence and a Retry that asks again (the query's refetch). */
export function LoadError({ query, title }: { query: FailedQuery; title?: string }) {
  return <ErrorMessage error={query.error} title={title} onRetry={() => void query.refetch()} />;
}

/** What the previous screen left to say (a record created, a change made), as a status line; nothing when it said nothing. */
export function Notice({ notice }: { notice: ReactNode }) {
  return notice ? (
    <p className="state" role="status">
      {notice}
    </p>
  ) : null;
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="state state-empty">{children}</p>;
}

/** What ListStates reads of a list query (a useQuery result over a list of the API). */
interface ListQuery extends FailedQuery {
  isPending: boolean;
  isError: boolean;
  data: { results: readonly unknown[] } | undefined;
}

/** A list screen's loading, error (with Retry) and empty states, the same on every screen; its rows follow when it has some. */
export function ListStates({ query, loading, empty }: { query: ListQuery; loading: string; empty: ReactNode }) {
  return (
    <>
      {query.isPending ? <Loading label={loading} /> : null}
      {query.isError ? <LoadError query={query} /> : null}
      {query.data && query.data.results.length === 0 ? <Empty>{empty}</Empty> : null}
    </>
  );
}
