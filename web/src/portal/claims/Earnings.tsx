import { useQuery } from '@tanstack/react-query';
import { formatTokenAmount } from '../../ui/format';
import { numeric, ScrollTable } from '../../ui/ScrollTable';
import { Empty, LoadError, Loading } from '../../ui/states';
import { usePortal } from '../session';
import { earningsByCurrency, pendingAmounts } from './earnings';
import { EarningsByLevel } from './EarningsByLevel';
import { LeaderboardPosition } from './LeaderboardPosition';
import { PointsBalance } from './PointsBalance';

/** Pending movements read for their dates: one page, the newest (the API's largest). */
const MOVEMENTS_READ = 100;

/**
 * The wallet's earnings per currency: available (in its checks, claimable) and pending, its place on
 * the payouts leaderboard, each pending amount with the date it becomes available or the program's
 * decision it waits for, and any debt a refund left, in words.
 */
export function Earnings() {
  const { projectId, address, api } = usePortal();
  const totals = useQuery({
    queryKey: ['portal', projectId, address, 'claim-totals'],
    // Holds end and the release job moves amounts from pending to available elsewhere: current when the page opens.
    staleTime: 0,
    queryFn: () => api('get', '/api/v1/claim-checks/totals', { query: { project_id: projectId } }),
  });
  const movements = useQuery({
    queryKey: ['portal', projectId, address, 'pending-movements'],
    staleTime: 0,
    queryFn: () => api('get', '/api/v1/payouts/movements', { query: { project_id: projectId, status: 'pending', page_size: MOVEMENTS_READ } }),
  });
  const rows = totals.data ? earningsByCurrency(totals.data) : [];
  const owed = rows.filter((row) => BigInt(row.debt) > 0n);
  const pending = movements.data ? pendingAmounts(movements.data.results) : [];

  return (
    <>
      <h2 id="earnings-heading">Your earnings</h2>
      <PointsBalance />
      {totals.isPending ? <Loading /> : null}
      {totals.isError ? <LoadError query={totals} /> : null}
      {totals.data && rows.length === 0 ? <Empty>Nothing earned to claim yet.</Empty> : null}
      {rows.length > 0 ? (
        <ScrollTable
          labelledBy="earnings-heading"
          caption="Per currency: what you can claim now and what is still pending"
          columns={['Currency', numeric('Available to claim'), numeric('Pending')]}
        >
          {rows.map((row) => (
            <tr key={row.key} data-testid="earnings">
              <td>{row.currency.name}</td>
              <td className="number" data-testid="earnings-available">
                {formatTokenAmount(row.available, row.currency)}
              </td>
              <td className="number" data-testid="earnings-pending">
                {formatTokenAmount(row.pending, row.currency)}
              </td>
            </tr>
          ))}
        </ScrollTable>
      ) : null}
      {/*
        Beside the earnings, as they land: a points balance (points are a currency of their own,
        issue 25 §1) and the earnings per referral level (r1..r4, §2) belong here, read from the
        APIs that add them; the leaderboard position below follows each currency the wallet earned in.
      */}
      <EarningsByLevel />
      <LeaderboardPosition currencies={rows.map((row) => row.currency)} />
      {owed.map((row) => (
        <p key={row.key} className="debt-notice" data-testid="debt">
          A refunded conversion took back {formatTokenAmount(row.debt, row.currency)} after your voucher was issued; it is paid from your next
          earnings before anything new becomes claimable.
        </p>
      ))}
      {movements.isError ? <LoadError query={movements} title="Pending dates not loaded" /> : null}
      {pending.length > 0 ? (
        <>
          <h3 id="pending-heading">When pending amounts become available</h3>
          <ScrollTable labelledBy="pending-heading" caption="Pending amounts, soonest first" columns={[numeric('Amount'), 'Becomes available']}>
            {pending.map((item) => (
              <tr key={item.key} data-testid="pending-amount">
                <td className="number">{formatTokenAmount(item.amount, item.currency)}</td>
                <td>{item.when}</td>
              </tr>
            ))}
          </ScrollTable>
          {movements.data && movements.data.total_results > movements.data.results.length ? (
            <p className="help">Dates are shown for your newest {MOVEMENTS_READ} pending payouts; the totals above count them all.</p>
          ) : null}
        </>
      ) : null}
    </>
  );
}
