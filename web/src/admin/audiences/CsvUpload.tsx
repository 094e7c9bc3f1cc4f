import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client';
import { IDENTIFIER_TYPES } from '../../ui/identifier-types';
import { ErrorMessage } from '../../ui/states';
import { useProject } from '../session';
import { chunk, type CsvEntry, lineOfViolation, parseEntriesCsv, refusalByLine } from './csv';
import { formatDecimal } from '../../ui/format';

/** Entries per request: well under the API's 10,000, so the bar moves and a failed batch costs little to resend. */
export const UPLOAD_BATCH_SIZE = 500;

type UploadState =
  | { phase: 'idle' }
  | { phase: 'sending'; sent: number; total: number; added: number; skipped: number }
  | { phase: 'done'; total: number; added: number; skipped: number }
  | { phase: 'failed'; sent: number; total: number; added: number; skipped: number; error: unknown; lines: number[] };

/**
 * Uploads a CSV of users to an audience in batches, one after another, each waiting for its job
 * (`?wait=true`). Each batch has an Idempotency-Key of this upload, so a batch resent after a
 * network fault adds nothing twice. Users already in the audience are skipped and counted.
 */
export function CsvUpload({ audienceId }: { audienceId: string }) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [defaultType, setDefaultType] = useState('evm_address');
  const [state, setState] = useState<UploadState>({ phase: 'idle' });

  const upload = async (event: FormEvent) => {
    event.preventDefault();
    if (!file) return;
    const entries = parseEntriesCsv(await file.text(), defaultType);
    const uploadId = crypto.randomUUID();
    const totals = { sent: 0, total: entries.length, added: 0, skipped: 0 };
    setState({ phase: 'sending', ...totals });
    const batches = chunk(entries, UPLOAD_BATCH_SIZE);
    for (const [index, batch] of batches.entries()) {
      try {
        const job = await sendBatch(batch, `${uploadId}:${index}`);
        totals.added += job.added;
        totals.skipped += job.skipped;
        totals.sent += batch.length;
        setState({ phase: 'sending', ...totals });
      } catch (error) {
        const lines =
          error instanceof ApiError ? error.details.map((detail) => lineOfViolation(detail.field, batch)).filter((line) => line !== undefined) : [];
        setState({ phase: 'failed', ...totals, error: refusalByLine(error, batch), lines });
        await queryClient.invalidateQueries({ queryKey: ['audience', projectId, audienceId] });
        return;
      }
    }
    setState({ phase: 'done', total: totals.total, added: totals.added, skipped: totals.skipped });
    await queryClient.invalidateQueries({ queryKey: ['audience', projectId, audienceId] });
    await queryClient.invalidateQueries({ queryKey: ['entries', projectId, audienceId] });
  };

  const sendBatch = async (batch: CsvEntry[], idempotencyKey: string) => {
    const request = () =>
      api('post', '/api/v1/projects/{projectId}/audiences/{audienceId}/entries/batch', {
        path: { projectId, audienceId },
        query: { wait: 'true' },
        headers: { 'idempotency-key': idempotencyKey },
        body: { entries: batch.map(({ identifier, identifier_type }) => ({ identifier, identifier_type })) },
      });
    let job = await request();
    // Still running after the API's wait: ask again for the same job.
    while (job.status === 'queued' || job.status === 'active') {
      job = await api('get', '/api/v1/projects/{projectId}/audiences/{audienceId}/entries/batch/{jobId}', {
        path: { projectId, audienceId, jobId: job.job_id },
        query: { wait: 'true' },
      });
    }
    if (job.status === 'failed') throw new Error(job.error ?? 'The batch could not be applied; upload the file again.');
    return job;
  };

  const sending = state.phase === 'sending';
  return (
    <form className="upload" onSubmit={(event) => void upload(event)}>
      <h2>Upload users from a CSV file</h2>
      <p className="help">
        One user per line: <code>identifier</code> or <code>identifier,identifier_type</code>, with an optional header line. Users already in the
        audience are skipped.
      </p>
      <div className="inline-fields">
        <div>
          <label htmlFor="csv-file">CSV file</label>
          <input id="csv-file" type="file" accept=".csv,text/csv,text/plain" onChange={(event) => setFile(event.target.files?.[0] ?? null)} />
        </div>
        <div>
          <label htmlFor="csv-default-type">Type of rows without one</label>
          <select id="csv-default-type" value={defaultType} onChange={(event) => setDefaultType(event.target.value)}>
            {IDENTIFIER_TYPES.map((type) => (
              <option key={type}>{type}</option>
            ))}
          </select>
        </div>
        <button type="submit" disabled={!file || sending}>
          {sending ? 'Uploading…' : 'Upload'}
        </button>
      </div>
      {state.phase !== 'idle' ? (
        <div className="upload-progress">
          <label htmlFor="upload-progress">
            {state.phase === 'done' ? state.total : state.sent} of {state.total} rows sent
          </label>
          <progress id="upload-progress" max={Math.max(1, state.total)} value={state.phase === 'done' ? state.total : state.sent} />
        </div>
      ) : null}
      <p role="status" aria-live="polite" className="upload-result">
        {state.phase === 'done' || state.phase === 'failed' || state.phase === 'sending'
          ? `Added ${formatDecimal(state.added)}, skipped ${formatDecimal(state.skipped)} already in the audience or repeated.`
          : ''}
      </p>
      {state.phase === 'failed' ? (
        <ErrorMessage
          error={state.error}
          title={`Upload stopped after ${state.sent} of ${state.total} rows${state.lines.length ? ` (check line ${state.lines.join(', ')})` : ''}`}
        />
      ) : null}
    </form>
  );
}
