import { type FormEvent, useState } from 'react';
import { TextField } from '../../../ui/TextField';
import { rangeProblems } from './boards';

/**
 * A range of UTC days (both included; either end may be left empty), typed as YYYY-MM-DD as the
 * app writes dates everywhere, checked here before the board is asked.
 */
export function DayRangeForm({ from, to, onApply }: { from: string; to: string; onApply(from: string, to: string): void }) {
  const [typedFrom, setFrom] = useState(from);
  const [typedTo, setTo] = useState(to);
  const [problems, setProblems] = useState<{ from?: string; to?: string }>({});
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = rangeProblems(typedFrom.trim(), typedTo.trim());
    setProblems(found);
    if (!found.from && !found.to) onApply(typedFrom.trim(), typedTo.trim());
  };
  return (
    <form className="inline-fields" onSubmit={submit} noValidate aria-label="Days counted">
      <div>
        <TextField id="board-from" label="From (UTC day, YYYY-MM-DD)" value={typedFrom} onChange={setFrom} error={problems.from} />
      </div>
      <div>
        <TextField id="board-to" label="To (UTC day, included)" value={typedTo} onChange={setTo} error={problems.to} />
      </div>
      <button type="submit">Show these days</button>
      {from || to ? (
        <button
          type="button"
          onClick={() => {
            setFrom('');
            setTo('');
            setProblems({});
            onApply('', '');
          }}
        >
          All time
        </button>
      ) : null}
    </form>
  );
}
