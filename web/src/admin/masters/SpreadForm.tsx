import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { fieldErrors } from '../../ui/field-errors';
import { formatBasisPoints, formatDateTime } from '../../ui/format';
import { errorSentence } from '../../ui/error-messages';
import { TextField } from '../../ui/TextField';
import { useProject } from '../session';
import { type Master, refreshMaster } from './queries';

/** Changes the spread from now on (earlier conversions keep theirs), with the spread history of this designation. */
export function SpreadForm({ master }: { master: Master }) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const [spread, setSpread] = useState(String(master.spread_bps));
  const change = useMutation({
    mutationFn: (spreadBps: number) =>
      api('patch', '/api/v1/projects/{projectId}/agencies/{agencyId}', { path: { projectId, agencyId: master.id }, body: { spread_bps: spreadBps } }),
    onSuccess: () => refreshMaster(queryClient, projectId, master.id),
  });
  const [missing, setMissing] = useState(false);
  const errors = fieldErrors(change.error);
  if (missing) errors.spread_bps = 'Enter the spread in basis points.';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setMissing(spread.trim() === '');
    if (spread.trim() !== '') change.mutate(Number(spread));
  };
  return (
    <section className="panel" aria-labelledby="spread-title">
      <h2 id="spread-title">Spread</h2>
      <form className="inline-fields" onSubmit={submit} noValidate>
        <div>
          <TextField
            id="spread-bps"
            label="New spread (basis points)"
            inputMode="numeric"
            value={spread}
            onChange={setSpread}
            error={errors.spread_bps ?? (change.isError ? errorSentence(change.error) : undefined)}
          />
        </div>
        <button type="submit" disabled={change.isPending}>
          {change.isPending ? 'Saving…' : 'Change spread'}
        </button>
      </form>
      <p role="status" className="help">
        {change.isSuccess ? `The spread is ${formatBasisPoints(change.data.spread_bps)} from now on.` : ''}
      </p>
      <h3>History</h3>
      <ul aria-label="Spread history, newest first">
        {master.spread_history.map((period) => (
          <li key={period.valid_from}>
            {formatBasisPoints(period.spread_bps)} from {formatDateTime(period.valid_from)}
            {period.valid_to ? ` to ${formatDateTime(period.valid_to)}` : ' (in force)'}
          </li>
        ))}
      </ul>
    </section>
  );
}
