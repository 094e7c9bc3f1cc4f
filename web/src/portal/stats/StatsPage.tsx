import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ApiError } from '../../api/client';
import { currencyOfAmount, formatCurrencyAmount, formatDecimal, formatUsd } from '../../ui/format';
import { Empty, LoadError, Loading } from '../../ui/states';
import { usePortal } from '../session';
import { numeric, ScrollTable } from '../../ui/ScrollTable';
import { EarningsBars } from './EarningsBars';

const METRICS = [
  { key: 'volume_usd', label: 'Volume (USD)' },
  { key: 'revenue_usd', label: 'Revenue (USD)' },
  { key: 'conversions', label: 'Conversions' },
] as const;
type Metric = (typeof METRICS)[number]['key'];

/** Stats: all-time figures and a chart of one metric per UTC day over the last 30 days. */
export function StatsPage() {
  const { projectId, address, api } = usePortal();
  const [metric, setMetric] = useState<Metric>('volume_usd');
  const stats = useQuery({
    queryKey: ['portal', projectId, address, 'stats'],
    staleTime: 0,
    queryFn: () => api('get', '/api/v1/projects/{projectId}/affiliate-portal/stats', { path: { projectId } }),
  });
  if (stats.isPending) return <Loading />;
  if (stats.isError) {
    const notAffiliate = stats.error instanceof ApiError && stats.error.code === 'AFFILIATE_NOT_FOUND';
    return (
      <>
        <h1>Stats</h1>
        {notAffiliate ? <Empty>Stats appear once you are an affiliate of this program.</Empty> : <LoadError query={stats} />}
      </>
    );
  }
  const data = stats.data;
  // The chart plots numbers; the exact decimal strings stay in the figures and the table.
  const points = data.series.map((day) => ({ date: day.date, value: Number(day[metric]) }));
  const label = METRICS.find((one) => one.key === metric)!.label;
  return (
    <>
      <h1>Stats</h1>
      <dl className="facts">
        <div>
          <dt>Volume</dt>
          <dd data-testid="stat-volume">{formatUsd(data.volume_usd)}</dd>
        </div>
        <div>
          <dt>Revenue</dt>
          <dd>{formatUsd(data.revenue_usd)}</dd>
        </div>
        <div>
          <dt>Conversions</dt>
          <dd data-testid="stat-conversions">{formatDecimal(data.conversions)}</dd>
        </div>
        <div>
          <dt>People referred</dt>
          <dd data-testid="stat-end-users">{formatDecimal(data.end_users)}</dd>
        </div>
        <div>
          <dt>People who converted</dt>
          <dd>{formatDecimal(data.converting_users)}</dd>
        </div>
        {data.earnings.map((earning) => (
          <div key={`${earning.currency_chain_id}:${earning.currency_address}`}>
            <dt>Earned in {currencyOfAmount(earning).type === 'point' ? 'points' : (earning.currency_name ?? 'a currency not known yet')}</dt>
            <dd data-testid="stat-earned" title={`${earning.amount} base units`}>
              {formatCurrencyAmount(earning)}
            </dd>
          </div>
        ))}
      </dl>
      <h2 id="chart-heading">Last 30 days</h2>
      <label htmlFor="chart-metric">Show</label>
      <select id="chart-metric" value={metric} onChange={(e) => setMetric(e.target.value as Metric)}>
        {METRICS.map((one) => (
          <option key={one.key} value={one.key}>
            {one.label}
          </option>
        ))}
      </select>
      <figure className="chart" aria-labelledby="chart-heading">
        <ResponsiveContainer width="100%" height={260}>
          <LineChart data={points} margin={{ top: 10, right: 16, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="date" tickFormatter={(date: string) => date.slice(5)} minTickGap={16} />
            <YAxis allowDecimals={metric !== 'conversions'} width={64} />
            <Tooltip formatter={(value) => [String(value), label]} />
            <Line type="monotone" dataKey="value" name={label} stroke="#1f5fa8" dot={false} isAnimationActive={false} />
          </LineChart>
        </ResponsiveContainer>
        <figcaption className="subtle">{label} per UTC day; the table below gives the exact figures.</figcaption>
      </figure>
      <EarningsBars stats={data} />
      <details>
        <summary>Figures per day</summary>
        <ScrollTable
          label="Figures per day"
          caption="Figures per UTC day"
          columns={['Day', numeric('Volume'), numeric('Revenue'), numeric('Conversions')]}
        >
          {data.series
            .filter((day) => day.conversions > 0)
            .map((day) => (
              <tr key={day.date}>
                <td>{day.date}</td>
                <td className="number">{formatUsd(day.volume_usd)}</td>
                <td className="number">{formatUsd(day.revenue_usd)}</td>
                <td className="number">{formatDecimal(day.conversions)}</td>
              </tr>
            ))}
        </ScrollTable>
        {data.series.every((day) => day.conversions === 0) ? <Empty>No conversions in these 30 days.</Empty> : null}
      </details>
    </>
  );
}
