import { useEffect, useRef, useState } from 'react';
import { ErrorMessage } from '../../ui/states';
import { useProject } from '../session';
import { exportAffiliatesCsv } from './affiliate-export';
import type { AffiliateFilters } from './filters';

type ExportState =
  { kind: 'idle' } | { kind: 'running'; done: number; total: number } | { kind: 'done'; rows: number } | { kind: 'failed'; error: unknown };

/** Starts the browser's download of a file made here (a Blob: nothing leaves the page). */
function download(text: string, fileName: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  URL.revokeObjectURL(url);
}

/**
 * "Export CSV" of the affiliate list as filtered and sorted: every page of the API's list, fetched
 * here (the count said as it goes, cancellable), then downloaded as one file.
 */
export function AffiliateExport({ filters }: { filters: AffiliateFilters }) {
  const { projectId, api } = useProject();
  const [state, setState] = useState<ExportState>({ kind: 'idle' });
  const running = useRef<AbortController | null>(null);
  // Leaving the page stops an export under way.
  useEffect(() => () => running.current?.abort(), []);

  const start = async () => {
    const controller = new AbortController();
    running.current = controller;
    setState({ kind: 'running', done: 0, total: 0 });
    try {
      const { csv, rows } = await exportAffiliatesCsv(
        api,
        projectId,
        filters,
        (done, total) => setState({ kind: 'running', done, total }),
        controller.signal,
      );
      download(csv, `affiliates-${projectId.slice(0, 8)}-${new Date().toISOString().slice(0, 10)}.csv`);
      setState({ kind: 'done', rows });
    } catch (error) {
      setState(controller.signal.aborted ? { kind: 'idle' } : { kind: 'failed', error });
    } finally {
      running.current = null;
    }
  };

  return (
    <div className="export">
      {state.kind === 'running' ? (
        <button type="button" onClick={() => running.current?.abort()}>
          Cancel export
        </button>
      ) : (
        <button type="button" onClick={() => void start()}>
          Export CSV
        </button>
      )}
      <p role="status" className="help">
        {state.kind === 'running'
          ? `Exporting… ${state.done.toLocaleString('en-US')} of ${state.total.toLocaleString('en-US')} affiliates`
          : state.kind === 'done'
            ? `Exported ${state.rows.toLocaleString('en-US')} affiliates as filtered.`
            : null}
      </p>
      {state.kind === 'failed' ? <ErrorMessage error={state.error} /> : null}
    </div>
  );
}
