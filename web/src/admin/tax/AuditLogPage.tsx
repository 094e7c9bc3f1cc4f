import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router-dom';
import { formatDateTime, shortIdentifier } from '../../ui/format';
import { pageFromUrl, Pager } from '../../ui/Pager';
import { ListStates } from '../../ui/states';
import { useProject } from '../session';
import { TAX_PATHS, taxKeys } from './tax-records';
import { ScrollTable } from '../../ui/ScrollTable';

const PAGE_SIZE = 20;

/** The project's API keys by id (one page of 100, the most a project keeps in practice), to name who read. */
function useKeyNames(): Map<string, string> {
  const { projectId, api } = useProject();
  const keys = useQuery({
    queryKey: ['api-keys', projectId, 'names'],
    queryFn: ({ signal }) => api('get', '/api/v1/projects/{projectId}/api-keys', { path: { projectId }, query: { page_size: 100 }, signal }),
  });
  return new Map((keys.data?.results ?? []).map((key) => [key.id, `${key.name} (${key.key_prefix}…)`]));
}

/** Who read unmasked tax information, newest first: who, when, whose record (never the value). */
export function AuditLogPage() {
  const { projectId, api } = useProject();
  const [params, setParams] = useSearchParams();
  const page = pageFromUrl(params);
  const keyNames = useKeyNames();
  const log = useQuery({
    queryKey: [...taxKeys.auditLog(projectId), page],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/audit-log', { path: { projectId }, query: { page, page_size: PAGE_SIZE }, signal }),
    placeholderData: keepPreviousData,
  });
  const rows = log.data?.results ?? [];
  return (
    <section aria-labelledby="audit-log-title">
      <h1 id="audit-log-title">Audit log</h1>
      <p className="help">Every read of a full tax id, newest first. The value itself is never logged.</p>
      <ListStates query={log} loading="Loading the audit log…" empty="Nobody has read a full tax id yet." />
      {log.data && rows.length > 0 ? (
        <>
          <ScrollTable
            label="Audit log table, scrollable"
            caption="Reads of full tax ids, newest first"
            columns={['When', 'Whose record', 'Read by (API key)', 'Action', 'Record id', 'Request id']}
          >
            {rows.map((entry) => (
              <tr key={entry.id}>
                <td>{formatDateTime(entry.occurred_at)}</td>
                <td>
                  <Link
                    className="identifier"
                    title={entry.user_identifier}
                    to={TAX_PATHS.record({ identifier: entry.user_identifier, identifierType: entry.user_identifier_type })}
                  >
                    {shortIdentifier(entry.user_identifier)}
                  </Link>
                </td>
                <td>{keyNames.get(entry.actor_api_key_id) ?? <span className="identifier">{entry.actor_api_key_id}</span>}</td>
                <td>{entry.action}</td>
                <td className="identifier">{entry.tax_record_id ?? '—'}</td>
                <td className="identifier">{entry.request_id ?? '—'}</td>
              </tr>
            ))}
          </ScrollTable>
          <Pager label="Audit log pages" list={log.data} onPage={(next) => setParams({ page: String(next) })} />
        </>
      ) : null}
    </section>
  );
}
