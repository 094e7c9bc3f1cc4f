import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useLocation, useSearchParams } from 'react-router-dom';
import { formatDateTime, formatDecimal } from '../../ui/format';
import { PagedTable } from '../../ui/PagedTable';
import { pageFromUrl } from '../../ui/Pager';
import { useProject } from '../session';
import { numeric } from '../../ui/ScrollTable';
import { WritesOnly } from '../key-role';
import { Notice } from '../../ui/states';

const PAGE_SIZE = 25;

export function AudienceList() {
  const { projectId, api } = useProject();
  const [params, setParams] = useSearchParams();
  const page = pageFromUrl(params);
  // An audience's page comes back here saying it was deleted.
  const notice = (useLocation().state as { notice?: string } | null)?.notice;
  const audiences = useQuery({
    queryKey: ['audiences', projectId, page],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/audiences', { path: { projectId }, query: { page, page_size: PAGE_SIZE }, signal }),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="audiences-title">
      <div className="page-head">
        <h1 id="audiences-title">Audiences</h1>
        <WritesOnly>
          <Link className="button" to="new">
            New audience
          </Link>
        </WritesOnly>
      </div>
      <Notice notice={notice} />
      <PagedTable
        query={audiences}
        loading="Loading audiences…"
        empty={
          <>
            No audiences yet.{' '}
            <WritesOnly>
              <Link to="new">Create the first one</Link>.
            </WritesOnly>
          </>
        }
        table={{
          label: 'Audiences table, scrollable',
          caption: 'The project’s audiences, oldest first',
          columns: ['Name', 'Type', numeric('Users'), 'Tier', 'Badge', 'Created'],
        }}
        row={(audience) => (
          <tr key={audience.id}>
            <td>
              <Link to={audience.id}>{audience.name}</Link>
            </td>
            <td>{audience.type}</td>
            <td className="number">{formatDecimal(audience.entries_count)}</td>
            <td>{audience.tier_rank ?? '—'}</td>
            <td>{audience.badge?.name ?? '—'}</td>
            <td>{formatDateTime(audience.created_at)}</td>
          </tr>
        )}
        pagerLabel="Audience pages"
        onPage={(next) => setParams({ page: String(next) })}
      />
    </section>
  );
}
