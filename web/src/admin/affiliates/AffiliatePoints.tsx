import { useQuery } from '@tanstack/react-query';
import { formatTokenAmount } from '../../ui/format';
import { noPoints } from '../../ui/points';
import { LoadError } from '../../ui/states';
import { useProject } from '../session';

/** The affiliate's points balance (docs/claims.md#points), beside its earnings; nothing when the project pays no points. */
export function AffiliatePoints({ identifier, identifierType }: { identifier: string; identifierType: string }) {
  const { projectId, api } = useProject();
  const balance = useQuery({
    queryKey: ['point-balances', projectId, identifierType, identifier],
    retry: (count, error) => !noPoints(error) && count < 2,
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/points/balances', {
        path: { projectId },
        query: { user_identifier: identifier, user_identifier_type: identifierType },
        signal,
      }),
  });
  if (balance.isError) return noPoints(balance.error) ? null : <LoadError query={balance} title="Points not loaded" />;
  const row = balance.data?.results[0];
  if (!balance.data || !row) return null;
  return (
    <p data-testid="affiliate-points">
      Points: <strong>{formatTokenAmount(row.balance, balance.data.currency)}</strong>
      {row.taken_back !== '0' ? ` (${formatTokenAmount(row.taken_back, balance.data.currency)} taken back by reversals)` : null}
    </p>
  );
}
