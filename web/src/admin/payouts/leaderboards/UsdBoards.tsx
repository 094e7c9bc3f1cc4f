import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { formatDecimal, formatUsd } from '../../../ui/format';
import { numeric, ScrollTable } from '../../../ui/ScrollTable';
import { useProject } from '../../session';
import { BoardFrame, BoardUser } from './BoardFrame';
import type { UserType } from './boards';
import { PAGE_SIZE } from './PayoutsBoard';

interface Props {
  userType: UserType;
  page: number;
  onPage(page: number): void;
}

const nobody = (userType: UserType, what: string) =>
  userType === 'affiliate' ? `No affiliate has referred users who brought ${what} yet.` : `No user has brought ${what} yet.`;

/** Users ranked by USD volume, all time (the agency's metrics). */
export function VolumeBoard({ userType, page, onPage }: Props) {
  const { projectId, api } = useProject();
  const board = useQuery({
    queryKey: ['leaderboard', 'volume', projectId, userType, page],
    queryFn: ({ signal }) => api('get', '/api/v1/payouts/leaderboard/volume', { query: { user_type: userType, page, page_size: PAGE_SIZE }, signal }),
    placeholderData: keepPreviousData,
  });
  return (
    <BoardFrame query={board} what="volume board" empty={nobody(userType, 'volume')} onPage={onPage}>
      {(data) => (
        <ScrollTable
          labelledBy="leaderboard-title"
          caption="Users ranked by USD volume"
          columns={[numeric('Rank'), 'User', 'Code', numeric('Volume')]}
        >
          {data.results.map((entry) => (
            <tr key={`${entry.user_identifier_type}:${entry.user_identifier}`}>
              <td className="number">{entry.rank}</td>
              <BoardUser identifier={entry.user_identifier} identifierType={entry.user_identifier_type} affiliate={userType === 'affiliate'} />
              <td>{entry.affiliate_code ?? '—'}</td>
              <td className="number">{formatUsd(entry.total_amount)}</td>
            </tr>
          ))}
        </ScrollTable>
      )}
    </BoardFrame>
  );
}

/** Users ranked by USD revenue, all time, with the conversions behind it. */
export function RevenueBoard({ userType, page, onPage }: Props) {
  const { projectId, api } = useProject();
  const board = useQuery({
    queryKey: ['leaderboard', 'revenue', projectId, userType, page],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/payouts/leaderboard/revenue', { query: { user_type: userType, page, page_size: PAGE_SIZE }, signal }),
    placeholderData: keepPreviousData,
  });
  return (
    <BoardFrame query={board} what="revenue board" empty={nobody(userType, 'revenue')} onPage={onPage}>
      {(data) => (
        <ScrollTable
          labelledBy="leaderboard-title"
          caption="Users ranked by USD revenue"
          columns={[numeric('Rank'), 'User', 'Code', numeric('Revenue'), numeric('Conversions')]}
        >
          {data.results.map((entry) => (
            <tr key={`${entry.user_identifier_type}:${entry.user_identifier}`}>
              <td className="number">{entry.rank}</td>
              <BoardUser identifier={entry.user_identifier} identifierType={entry.user_identifier_type} affiliate={userType === 'affiliate'} />
              <td>{entry.affiliate_code ?? '—'}</td>
              <td className="number">{formatUsd(entry.total_amount)}</td>
              <td className="number">{formatDecimal(entry.attributions)}</td>
            </tr>
          ))}
        </ScrollTable>
      )}
    </BoardFrame>
  );
}

/** Affiliates ranked by the users they referred, converted or not, all time. */
export function ReferredUsersBoard({ page, onPage }: Omit<Props, 'userType'>) {
  const { projectId, api } = useProject();
  const board = useQuery({
    queryKey: ['leaderboard', 'referred-users', projectId, page],
    queryFn: ({ signal }) => api('get', '/api/v1/leaderboard/referred', { query: { page, page_size: PAGE_SIZE }, signal }),
    placeholderData: keepPreviousData,
  });
  return (
    <BoardFrame query={board} what="referred users board" empty="No affiliate has referred anyone yet." onPage={onPage}>
      {(data) => (
        <ScrollTable
          labelledBy="leaderboard-title"
          caption="Affiliates ranked by the users they referred"
          columns={[numeric('Rank'), 'Affiliate', numeric('Users referred')]}
        >
          {data.results.map((entry) => (
            <tr key={`${entry.user_identifier_type}:${entry.user_identifier}`}>
              <td className="number">{entry.rank}</td>
              <BoardUser identifier={entry.user_identifier} identifierType={entry.user_identifier_type} affiliate />
              <td className="number">{formatDecimal(entry.total_referred_users)}</td>
            </tr>
          ))}
        </ScrollTable>
      )}
    </BoardFrame>
  );
}
