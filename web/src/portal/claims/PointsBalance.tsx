import { useQuery } from '@tanstack/react-query';
import { formatTokenAmount } from '../../ui/format';
import { noPoints } from '../../ui/points';
import { LoadError } from '../../ui/states';
import { usePortal } from '../session';

/** The wallet's points (docs/claims.md#points): credited to a balance, never claimed; nothing when the program pays no points. */
export function PointsBalance() {
  const { projectId, address, api } = usePortal();
  const balance = useQuery({
    queryKey: ['portal', projectId, address, 'points-balance'],
    staleTime: 0,
    retry: (count, error) => !noPoints(error) && count < 2,
    queryFn: () => api('get', '/api/v1/payouts/points/balance', { query: { project_id: projectId } }),
  });
  if (balance.isError) return noPoints(balance.error) ? null : <LoadError query={balance} title="Points not loaded" />;
  if (!balance.data) return null;
  return (
    <p data-testid="points-balance">
      Your points: <strong>{formatTokenAmount(balance.data.balance, balance.data.currency)}</strong>
    </p>
  );
}
