import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link } from 'react-router-dom';
import { ErrorMessage, Loading } from '../../ui/states';
import { useProject } from '../session';
import { RecordFacts } from './RecordFacts';
import { type RecordOwner, TAX_PATHS, taxKeys } from './tax-records';

export const AUDIT_NOTICE = 'This read is recorded in the audit log: who, when, whose record.';

/**
 * The one audited read (GET …/tax-status), which returns the tax id in full. It never runs by
 * itself: only when the admin presses the button under the notice, once per press (no retry, no
 * refetch on focus or reconnect, each of which would be another audited read). The answer lives in
 * this component only: its query key is this mount's own and gcTime is 0, so leaving the page (or
 * hiding it) drops it from the cache, and nothing is persisted.
 */
export function UnmaskedView({ owner }: { owner: RecordOwner }) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const mount = useId();
  /** Each press of Show (and of Hide) moves to a new key: a new read, never a cached one. */
  const [reads, setReads] = useState(0);
  const [shown, setShown] = useState(false);
  const read = useQuery({
    queryKey: ['tax-unmasked', projectId, mount, reads],
    queryFn: async ({ signal }) => {
      const result = await api('get', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}/tax-status', {
        path: { projectId, userIdentifier: owner.identifier },
        query: { user_identifier_type: owner.identifierType },
        signal,
      });
      await queryClient.invalidateQueries({ queryKey: taxKeys.auditLog(projectId) });
      return result;
    },
    enabled: shown,
    gcTime: 0,
    staleTime: Infinity,
    retry: false,
    refetchOnMount: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });

  return (
    <section aria-labelledby="unmasked-title" className="unmasked">
      <h2 id="unmasked-title">Full tax record (audited)</h2>
      <p className="audit-notice" role="note">
        {AUDIT_NOTICE}
      </p>
      {!shown ? (
        <button
          type="button"
          className="primary"
          onClick={() => {
            setReads((count) => count + 1);
            setShown(true);
          }}
        >
          Show the full tax id
        </button>
      ) : (
        <button
          type="button"
          onClick={() => {
            // A new key: the shown answer's query loses its observer and, with gcTime 0, leaves the cache.
            setReads((count) => count + 1);
            setShown(false);
          }}
        >
          Hide the full tax id
        </button>
      )}
      {shown && read.isPending ? <Loading label="Reading the full record…" /> : null}
      {shown && read.isError ? <ErrorMessage error={read.error} title="Not read" /> : null}
      {shown && read.data ? (
        <div className="unmasked-result">
          <p>
            Effective status: <strong>{read.data.status}</strong>. This read is now in the <Link to={TAX_PATHS.auditLog}>audit log</Link>.
          </p>
          {read.data.tax_info ? (
            <RecordFacts record={read.data.tax_info} taxIdLabel="Tax id (in full)" />
          ) : (
            <p>Nothing submitted: there is no tax record to show.</p>
          )}
        </div>
      ) : null}
    </section>
  );
}
