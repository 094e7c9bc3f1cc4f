import { type FormEvent, useState } from 'react';
import { Link } from 'react-router-dom';
import { TextField } from '../../ui/TextField';
import { type Period, PRESETS, rangeProblems } from './period';

/**
 * The period of the home's figures: the last 7, 30 or 90 days as links (kept in the URL, so a period
 * can be shared and the back button returns to the one before), or a range of UTC days typed and checked here.
 */
export function PeriodPicker({ period, onRange }: { period: Period; onRange(from: string, to: string): void }) {
  const [from, setFrom] = useState(period.from);
  const [to, setTo] = useState(period.to);
  const [problems, setProblems] = useState<{ from?: string; to?: string }>({});
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = rangeProblems(from.trim(), to.trim());
    setProblems(found);
    if (!found.from && !found.to) onRange(from.trim(), to.trim());
  };
  return (
    <div className="period-picker">
      <nav aria-label="Period">
        <ul>
          {PRESETS.map((days) => (
            <li key={days}>
              <Link to={`?days=${days}`} aria-current={period.days === days ? 'true' : undefined}>
                Last {days} days
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <form className="inline-fields" onSubmit={submit} noValidate aria-label="Days shown">
        <div>
          <TextField id="home-from" label="From (UTC day, YYYY-MM-DD)" value={from} onChange={setFrom} error={problems.from} />
        </div>
        <div>
          <TextField id="home-to" label="To (UTC day, included)" value={to} onChange={setTo} error={problems.to} />
        </div>
        <button type="submit">Show these days</button>
      </form>
    </div>
  );
}
