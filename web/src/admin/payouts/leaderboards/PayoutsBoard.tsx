import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { formatDecimal, formatTokenAmount } from '../../../ui/format';
import { numeric, ScrollTable } from '../../../ui/ScrollTable';
import { useProject } from '../../session';
import type { Currency } from '../currencies';
import { BoardFrame, BoardUser } from './BoardFrame';
import type { UserType } from './boards';

export const PAGE_SIZE = 25;

/** Users ranked by what they earned in one currency, all time or over a range of UTC days (from/to, both included). */
export function PayoutsBoard({
  currency,
  userType,
  from,
  to,
  page,
  onPage,
}: {
  currency: Currency;
  userType: UserType;
  from: string | undefined;
  to: string | undefined;
  page: number;
  onPage(page: number): void;
}) {
  const { projectId, api } = useProject();
  const board = useQuery({
    queryKey: ['leaderboard', 'payouts', projectId, currency.id, userType, from, to, page],
    // A point currency has no chain or address: its board is the points board (one point currency per project).
    queryFn: ({ signal }) =>
      currency.type === 'point'
        ? api('get', '/api/v1/payouts/leaderboard/points', { query: { user_type: userType, from, to, page, page_size: PAGE_SIZE }, signal })
        : api('get', '/api/v1/payouts/leaderboard/payouts', {
            query: {
              currency_address: currency.address ?? undefined,
              chain_id: currency.chain_id ?? undefined,
              user_type: userType,
              from,
              to,
              page,
              page_size: PAGE_SIZE,
            },
            signal,
          }),
    placeholderData: keepPreviousData,
  });
  const who = userType === 'affiliate' ? 'an affiliate' : 'an end user';
  const when = from && from === to ? ` on ${from}` : from || to ? ` between ${from ?? 'the first payout'} and ${to ?? 'today'}` : '';
  return (
    <BoardFrame query={board} what="payouts board" empty={`Nobody earned ${currency.name} as ${who}${when}.`} onPage={onPage}>
      {(data) => (
        <ScrollTable
          labelledBy="leaderboard-title"
          caption={`Users ranked by ${currency.name} earned${when}`}
          columns={[numeric('Rank'), 'User', numeric('Total earned'), numeric('Payouts')]}
        >
          {data.results.map((entry) => (
            <tr key={`${entry.user_identifier_type}:${entry.user_identifier}`}>
              <td className="number">{entry.rank}</td>
              <BoardUser identifier={entry.user_identifier} identifierType={entry.user_identifier_type} affiliate={userType === 'affiliate'} />
              <td className="number" title={`${entry.total_amount_base_units} base units`}>
                {formatTokenAmount(entry.total_amount_base_units, currency)}
              </td>
              <td className="number">{formatDecimal(entry.total_attributions)}</td>
            </tr>
          ))}
        </ScrollTable>
      )}
    </BoardFrame>
  );
}
