import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { AffiliateLink } from '../../affiliates/AffiliateLink';
import { formatDateTime, formatDecimal, shortIdentifier } from '../../../ui/format';
import { type ListPosition, Pager } from '../../../ui/Pager';
import { Empty, ErrorMessage, Loading } from '../../../ui/states';

/** What every ranked board answers: a page of entries and when it was read. */
export interface BoardPage extends ListPosition {
  results: readonly unknown[];
  calculated_at: string;
}

/**
 * A board's loading, failure (with Retry) and empty states, then its rows with when they were read
 * ("as of", the API's calculated_at) and the pager: the same on every board.
 */
export function BoardFrame<T extends BoardPage>({
  query,
  what,
  empty,
  onPage,
  children,
}: {
  query: UseQueryResult<T>;
  /** "the payouts board": for the loading sentence. */
  what: string;
  empty: ReactNode;
  onPage(page: number): void;
  children(data: T): ReactNode;
}) {
  if (query.isPending) return <Loading label={`Loading ${what}…`} />;
  if (query.isError) return <ErrorMessage error={query.error} title={`The ${what} did not load`} onRetry={() => void query.refetch()} />;
  if (query.data.results.length === 0) return <Empty>{empty}</Empty>;
  return (
    <>
      <p className="count" data-testid="board-as-of">
        {formatDecimal(query.data.total_results)} ranked, as of {formatDateTime(query.data.calculated_at)}
      </p>
      {children(query.data)}
      <Pager label="Leaderboard pages" list={query.data} onPage={onPage} />
    </>
  );
}

/**
 * A ranked user: an affiliate links to its page (where its name and figures are: the boards, which the
 * public SDK reads too, name nobody); an end user is its identifier. Both shortened, the full one in the title.
 */
export function BoardUser({ identifier, identifierType, affiliate }: { identifier: string; identifierType: string; affiliate: boolean }) {
  return (
    <td className="identifier">
      {affiliate ? (
        <AffiliateLink identifier={identifier} identifierType={identifierType} />
      ) : (
        <span title={identifier}>{shortIdentifier(identifier)}</span>
      )}
    </td>
  );
}
