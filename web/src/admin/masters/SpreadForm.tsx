import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { FieldError, fieldErrors } from '../../ui/field-errors';
import { formatDateTime } from '../../ui/format';
import { useProject } from '../session';
import { formatSpread } from './figures';
import type { Master } from './MasterDetail';
import { refreshMaster } from './queries';

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
          <label htmlFor="spread-bps">New spread (basis points)</label>
          <input
            id="spread-bps"
            inputMode="numeric"
            value={spread}
            onChange={(event) => setSpread(event.target.value)}
            aria-invalid={Boolean(errors.spread_bps)}
            aria-describedby="spread-bps-error"
          />
        </div>
        <button type="submit" disabled={change.isPending}>
          {change.isPending ? 'Saving…' : 'Change spread'}
        </button>
      </form>
      <FieldError id="spread-bps-error" message={errors.spread_bps ?? (change.isError ? change.error.message : undefined)} />
      <p role="status" className="help">
        {change.isSuccess ? `The spread is ${formatSpread(change.data.spread_bps)} from now on.` : ''}
      </p>
      <h3>History</h3>
      <ul aria-label="Spread history, newest first">
        {master.spread_history.map((period) => (
          <li key={period.valid_from}>
            {formatSpread(period.spread_bps)} from {formatDateTime(period.valid_from)}
            {period.valid_to ? ` to ${formatDateTime(period.valid_to)}` : ' (in force)'}
          </li>
        ))}
      </ul>
    </section>
  );
}
