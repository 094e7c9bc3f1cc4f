import { useQuery } from '@tanstack/react-query';
import { ApiError } from '../../api/client';
import { formatCurrencyAmount, formatDecimal, formatUsd } from '../../ui/format';
import { numeric, ScrollTable } from '../../ui/ScrollTable';
import { ErrorMessage } from '../../ui/states';
import { usePortal } from '../session';

const LEVEL_WORDS: Record<number, string> = {
  1: 'Level 1: people you referred',
  2: 'Level 2: referred by affiliates you referred',
  3: 'Level 3',
  4: 'Level 4',
};

/**
 * What the wallet earned at each of the four referral levels, all time (docs/claims.md#referral-levels):
 * level 1 from the people it referred, levels 2 to 4 from the conversions of the affiliates below it.
 * Read from the portal's stats (the same query the Stats page reads); a wallet that is no affiliate
 * earns at no level, so nothing is shown.
 */
export function EarningsByLevel() {
  const { projectId, address, api } = usePortal();
  const stats = useQuery({
    queryKey: ['portal', projectId, address, 'stats'],
    staleTime: 0,
    queryFn: () => api('get', '/api/v1/projects/{projectId}/affiliate-portal/stats', { path: { projectId } }),
  });
  if (stats.isError) {
    if (stats.error instanceof ApiError && stats.error.code === 'AFFILIATE_NOT_FOUND') return null;
    return <ErrorMessage error={stats.error} title="Earnings per level not loaded" onRetry={() => void stats.refetch()} />;
  }
  if (!stats.data) return null;
  return (
    <>
      <h3 id="levels-heading">Earnings per referral level</h3>
      <p className="help">
        All time. Level 2 is what you earn when an affiliate you referred brings a conversion; levels 3 and 4 go one and two steps further down.
      </p>
      <ScrollTable
        labelledBy="levels-heading"
        caption="Per referral level: the volume of its conversions and what you earned from them"
        columns={['Level', numeric('Volume'), numeric('Conversions'), 'Earned']}
      >
        {stats.data.levels.map((level) => (
          <tr key={level.level} data-testid="level-earnings">
            <td>{LEVEL_WORDS[level.level] ?? `Level ${level.level}`}</td>
            <td className="number">{formatUsd(level.volume_usd)}</td>
            <td className="number">{formatDecimal(level.conversions)}</td>
            <td>{level.earnings.length === 0 ? 'Nothing yet' : level.earnings.map(formatCurrencyAmount).join(', ')}</td>
          </tr>
        ))}
      </ScrollTable>
    </>
  );
}
