import { useId } from 'react';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

/** One day's bar: its height, and the exact figure the tooltip says (an amount in its currency, never the rounded height). */
export interface DayBar {
  day: string;
  height: number;
  label: string;
}

/**
 * A figure per UTC day as bars, one per day (a day without any is an empty slot, never an interpolated
 * line): the bars' heights are only drawn, the exact figure of each day is in its tooltip.
 */
export function DailyBars({ title, caption, bars, counts = false }: { title: string; caption: string; bars: readonly DayBar[]; counts?: boolean }) {
  const heading = useId();
  return (
    <figure className="chart daily-bars" aria-labelledby={heading}>
      <h3 id={heading} className="small-heading">
        {title}
      </h3>
      <ResponsiveContainer width="100%" height={180}>
        <BarChart data={[...bars]} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="day" tickFormatter={(day: string) => day.slice(5)} minTickGap={16} />
          {/* Amounts as small as 0.01 of a token keep a scale of their own; only counts tick in whole numbers. */}
          <YAxis width={64} allowDecimals={!counts} tickFormatter={(value: number) => compact(value)} />
          <Tooltip formatter={(_value, _name, item) => [(item.payload as DayBar).label, title]} labelFormatter={(day) => `${String(day)} (UTC)`} />
          <Bar dataKey="height" name={title} fill="#1f5fa8" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
      <figcaption className="subtle">{caption}</figcaption>
    </figure>
  );
}

/** An axis tick: 12,500 -> "12.5K", 0.005 -> "0.005"; the axis is a scale to read the bars by, the exact figures are in the tooltips and the table. */
function compact(value: number): string {
  return new Intl.NumberFormat('en-US', { notation: 'compact', maximumSignificantDigits: 3 }).format(value);
}
