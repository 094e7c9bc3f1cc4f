import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { numeric, ScrollTable } from '../../ui/ScrollTable';
import { Empty, LoadError, Loading } from '../../ui/states';
import { useProject } from '../session';
import { formatCount, formatDecimal } from '../../ui/format';

/**
 * An affiliate's clicks per UTC day over the last 30 days, of all its codes or of the one picked: a
 * chart (recharts, as the portal's stats), and the same figures as a table for screen readers and exact reading.
 */
export function ClicksChart({ identifier, identifierType, codes }: { identifier: string; identifierType: string; codes: string[] }) {
  const { projectId, api } = useProject();
  const [code, setCode] = useState('');
  const ids = { heading: useId(), picker: useId() };
  const clicks = useQuery({
    queryKey: ['affiliate', projectId, identifierType, identifier, 'clicks', code],
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}/clicks', {
        path: { projectId, userIdentifier: identifier },
        query: { identifier_type: identifierType, ...(code === '' ? {} : { code }) },
        signal,
      }),
  });
  const series = clicks.data?.series ?? [];
  const total = series.reduce((sum, day) => sum + day.clicks, 0);
  const of = code === '' ? 'all codes' : code;
  return (
    <section aria-labelledby={ids.heading}>
      <h2 id={ids.heading}>Clicks, last 30 days</h2>
      {codes.length > 1 ? (
        <>
          <label htmlFor={ids.picker}>Code</label>
          <select id={ids.picker} value={code} onChange={(event) => setCode(event.target.value)}>
            <option value="">All codes</option>
            {codes.map((one) => (
              <option key={one} value={one}>
                {one}
              </option>
            ))}
          </select>
        </>
      ) : null}
      {clicks.isPending ? <Loading label="Loading the clicks…" /> : null}
      {clicks.isError ? <LoadError query={clicks} /> : null}
      {clicks.data ? (
        <>
          <p data-testid="clicks-total">
            {formatCount(total, 'click')} of {of} in these 30 days
          </p>
          <figure className="chart" aria-labelledby={ids.heading}>
            <ResponsiveContainer width="100%" height={200}>
              <BarChart data={series} margin={{ top: 10, right: 16, bottom: 0, left: 0 }}>
                <CartesianGrid strokeDasharray="3 3" />
                <XAxis dataKey="date" tickFormatter={(date: string) => date.slice(5)} minTickGap={16} />
                <YAxis allowDecimals={false} width={48} />
                <Tooltip formatter={(value) => [String(value), 'Clicks']} />
                <Bar dataKey="clicks" name="Clicks" fill="#1f5fa8" isAnimationActive={false} />
              </BarChart>
            </ResponsiveContainer>
            <figcaption className="subtle">Clicks of {of} per UTC day (one per visitor, code and day); the table below gives each day.</figcaption>
          </figure>
          <details>
            <summary>Clicks per day</summary>
            {total === 0 ? (
              <Empty>No clicks in these 30 days.</Empty>
            ) : (
              <ScrollTable label="Clicks per day" caption={`Clicks of ${of} per UTC day, days with clicks`} columns={['Day', numeric('Clicks')]}>
                {series
                  .filter((day) => day.clicks > 0)
                  .map((day) => (
                    <tr key={day.date}>
                      <td>{day.date}</td>
                      <td className="number">{formatDecimal(day.clicks)}</td>
                    </tr>
                  ))}
              </ScrollTable>
            )}
          </details>
        </>
      ) : null}
    </section>
  );
}
