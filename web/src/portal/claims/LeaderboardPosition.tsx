import { useQueries } from '@tanstack/react-query';
import { formatCount, formatOrdinal, formatTokenAmount } from '../../ui/format';
import { ErrorMessage } from '../../ui/states';
import { usePortal } from '../session';
import type { CurrencyEarnings } from './earnings';

type Currency = CurrencyEarnings['currency'];

/**
 * The wallet's place on the program's payouts board of each currency it earned in (affiliate
 * payouts, all time): its rank and total, the board's own entry of the signed-in wallet (a session
 * reads nobody else's). Beside the earnings, so an affiliate sees where it stands.
 */
export function LeaderboardPosition({ currencies }: { currencies: readonly Currency[] }) {
  const { projectId, address, api } = usePortal();
  const entries = useQueries({
    queries: currencies.map((currency) => ({
      queryKey: ['portal', projectId, address, 'board-position', currency.chainId, currency.address],
      // Each conversion moves it: current when the page opens.
      staleTime: 0,
      queryFn: () =>
        api('get', '/api/v1/payouts/leaderboard/payouts', {
          query: { project_id: projectId, currency_address: currency.address, chain_id: currency.chainId, user_type: 'affiliate' },
        }),
    })),
  });
  if (currencies.length === 0) return null;
  return (
    <>
      <h3 id="board-position-heading">Your place on the leaderboard</h3>
      <ul aria-labelledby="board-position-heading">
        {currencies.map((currency, index) => {
          const entry = entries[index]!;
          const key = `${currency.chainId}:${currency.address}`;
          if (entry.isPending) return <li key={key}>{currency.name}: loading your place…</li>;
          if (entry.isError)
            return (
              <li key={key}>
                <ErrorMessage
                  error={entry.error}
                  title={`Your place on the ${currency.name} board did not load`}
                  onRetry={() => void entry.refetch()}
                />
              </li>
            );
          const own = entry.data.results[0];
          return (
            <li key={key} data-testid="board-position">
              {own
                ? `${formatOrdinal(own.rank)} among affiliates in ${currency.name}, with ${formatTokenAmount(own.total_amount_base_units, currency)} earned from ${formatCount(own.total_attributions, 'payout')}.`
                : `Not on the ${currency.name} board yet: it ranks what affiliates earned from their referrals.`}
            </li>
          );
        })}
      </ul>
      <p className="help">The board counts what became available to you; a pending amount joins it when it does.</p>
    </>
  );
}
