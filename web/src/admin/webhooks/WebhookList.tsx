import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router-dom';
import { formatDateTime } from '../../ui/format';
import { PagedTable } from '../../ui/PagedTable';
import { pageFromUrl } from '../../ui/Pager';
import { useProject } from '../session';
import { WritesOnly } from '../key-role';
import { WebhookHealth } from './WebhookHealth';

const PAGE_SIZE = 25;

/** The project's webhook endpoints, oldest first (the API never shows their secrets). */
export function WebhookList() {
  const { projectId, api } = useProject();
  const [params, setParams] = useSearchParams();
  const page = pageFromUrl(params);
  const webhooks = useQuery({
    queryKey: ['webhooks', projectId, 'list', page],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/webhooks', { path: { projectId }, query: { page, page_size: PAGE_SIZE }, signal }),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="webhooks-title">
      <div className="page-head">
        <h1 id="webhooks-title">Webhooks</h1>
        <WritesOnly>
          <Link className="button" to="new">
            New endpoint
          </Link>
        </WritesOnly>
      </div>
      <p className="help">
        Endpoints receive the project’s events, signed the Standard Webhooks way, and retried for 24 hours until they answer 2xx.
      </p>
      <PagedTable
        query={webhooks}
        loading="Loading endpoints…"
        empty={
          <>
            No endpoints yet.{' '}
            <WritesOnly>
              <Link to="new">Create the first one</Link>.
            </WritesOnly>
          </>
        }
        table={{
          label: 'Webhook endpoints table, scrollable',
          caption: 'The project’s webhook endpoints, oldest first',
          columns: ['URL', 'Events', 'State', 'Created'],
        }}
        row={(webhook) => (
          <tr key={webhook.id}>
            <td className="identifier">
              <Link to={webhook.id}>{webhook.url}</Link>
            </td>
            <td className="wrap">{webhook.events.join(', ')}</td>
            <td className="wrap">
              <WebhookHealth webhookId={webhook.id} enabled={webhook.enabled} />
            </td>
            <td>{formatDateTime(webhook.created_at)}</td>
          </tr>
        )}
        pagerLabel="Endpoint pages"
        onPage={(next) => setParams({ page: String(next) })}
      />
    </section>
  );
}
