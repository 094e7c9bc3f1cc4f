import { useQuery } from '@tanstack/react-query';
import { formatDateTime, formatTokenAmount } from '../../ui/format';
import { numeric, ScrollTable } from '../../ui/ScrollTable';
import { Empty, LoadError, Loading } from '../../ui/states';
import { useProject } from '../session';

const TOP = 25;

/** The project's top points balances (docs/claims.md#points): what users hold now, net of reversals, all kinds together. */
export function PointBalances() {
  const { projectId, api } = useProject();
  const balances = useQuery({
    queryKey: ['point-balances', projectId],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/points/balances', { path: { projectId }, query: { page: 1, page_size: TOP }, signal }),
  });
  if (balances.isPending) return <Loading label="Loading the points balances…" />;
  if (balances.isError) return <LoadError query={balances} />;
  const { currency } = balances.data;
  return (
    <>
      <h3 id="point-balances-title">Top points balances</h3>
      {balances.data.results.length === 0 ? (
        <Empty>Nobody holds {currency.name} yet.</Empty>
      ) : (
        <ScrollTable
          labelledBy="point-balances-title"
          caption="Users by points held, highest first"
          columns={['User', numeric('Balance'), numeric('Taken back'), 'Last change']}
        >
          {balances.data.results.map((row) => (
            <tr key={`${row.user_identifier_type}:${row.user_identifier}`} data-testid="point-balance">
              <td className="identifier">{row.user_identifier}</td>
              <td className="number">{formatTokenAmount(row.balance, currency)}</td>
              <td className="number">{formatTokenAmount(row.taken_back, currency)}</td>
              <td>{row.updated_at ? formatDateTime(row.updated_at) : '—'}</td>
            </tr>
          ))}
        </ScrollTable>
      )}
    </>
  );
}
