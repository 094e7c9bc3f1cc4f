import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router-dom';
import { formatDateTime, formatTokenAmount } from '../../ui/format';
import { pageFromUrl, Pager } from '../../ui/Pager';
import { Empty, ErrorMessage, Loading } from '../../ui/states';
import { useProject } from '../session';
import { type Currency, currencyLabel, useCurrencyChoices } from './currencies';
import { numeric, ScrollTable } from '../../ui/ScrollTable';
import { PointBalances } from './PointBalances';

type UserType = 'affiliate' | 'end_user';
const PAGE_SIZE = 25;

/** Users ranked by what they earned in one currency, as affiliates or as converting users. */
export function LeaderboardPage() {
  const currencies = useCurrencyChoices();
  const [params, setParams] = useSearchParams();
  const userType: UserType = params.get('user_type') === 'end_user' ? 'end_user' : 'affiliate';
  const page = pageFromUrl(params);
  const currency = currencies.data?.find((choice) => choice.id === params.get('currency')) ?? currencies.data?.[0];
  const choose = (next: { currency?: string; user_type?: UserType; page?: number }) =>
    setParams({ currency: next.currency ?? currency?.id ?? '', user_type: next.user_type ?? userType, page: String(next.page ?? 1) });

  return (
    <>
      <h2 id="leaderboard-title">Leaderboard</h2>
      <p className="help">Totals of affiliate payouts (or end-user payouts) per user; agency payouts never count. Ties are ranked by identifier.</p>
      {currencies.isPending ? <Loading label="Loading currencies…" /> : null}
      {currencies.isError ? <ErrorMessage error={currencies.error} /> : null}
      {currencies.data?.length === 0 ? (
        <Empty>
          No currencies yet, so nothing was paid. <Link to="/admin/payouts/currencies">Add a currency</Link>.
        </Empty>
      ) : null}
      {currency ? (
        <>
          <div className="inline-fields">
            <div>
              <label htmlFor="board-currency">Currency</label>
              <select id="board-currency" value={currency.id} onChange={(event) => choose({ currency: event.target.value })}>
                {currencies.data?.map((choice) => (
                  <option key={choice.id} value={choice.id}>
                    {currencyLabel(choice)}
                  </option>
                ))}
              </select>
            </div>
            <div>
              <label htmlFor="board-user-type">Ranked</label>
              <select id="board-user-type" value={userType} onChange={(event) => choose({ user_type: event.target.value as UserType })}>
                <option value="affiliate">Affiliates (affiliate payouts)</option>
                <option value="end_user">End users (end-user payouts)</option>
              </select>
            </div>
          </div>
          <Board currency={currency} userType={userType} page={page} onPage={(next) => choose({ page: next })} />
          {currency.type === 'point' ? <PointBalances /> : null}
        </>
      ) : null}
    </>
  );
}

function Board({ currency, userType, page, onPage }: { currency: Currency; userType: UserType; page: number; onPage(page: number): void }) {
  const { projectId, api } = useProject();
  const board = useQuery({
    queryKey: ['leaderboard', projectId, currency.id, userType, page],
    // A point currency has no address: its board is the points board.
    queryFn: ({ signal }) =>
      currency.type === 'point'
        ? api('get', '/api/v1/payouts/leaderboard/points', { query: { user_type: userType, page, page_size: PAGE_SIZE }, signal })
        : api('get', '/api/v1/payouts/leaderboard/payouts', {
            query: {
              currency_address: currency.address ?? undefined,
              chain_id: currency.chain_id ?? undefined,
              user_type: userType,
              page,
              page_size: PAGE_SIZE,
            },
            signal,
          }),
    placeholderData: keepPreviousData,
  });
  if (board.isPending) return <Loading label="Loading the leaderboard…" />;
  if (board.isError) return <ErrorMessage error={board.error} />;
  if (board.data.results.length === 0)
    return (
      <Empty>
        Nobody has earned {currency.name} as {userType === 'affiliate' ? 'an affiliate' : 'an end user'} yet.
      </Empty>
    );
  return (
    <>
      <p className="count">As of {formatDateTime(board.data.calculated_at)}</p>
      <ScrollTable
        labelledBy="leaderboard-title"
        caption="Users ranked by total earned"
        columns={[numeric('Rank'), 'User', numeric('Total earned'), numeric('Payouts')]}
      >
        {board.data.results.map((entry) => (
          <tr key={`${entry.user_identifier_type}:${entry.user_identifier}`}>
            <td className="number">{entry.rank}</td>
            <td className="identifier">{entry.user_identifier}</td>
            <td className="number" title={`${entry.total_amount_base_units} base units`}>
              {formatTokenAmount(entry.total_amount_base_units, currency)}
            </td>
            <td className="number">{entry.total_attributions.toLocaleString('en-US')}</td>
          </tr>
        ))}
      </ScrollTable>
      <Pager label="Leaderboard pages" list={board.data} onPage={onPage} />
    </>
  );
}
