import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router-dom';
import { formatDateTime } from '../../ui/format';
import { Pager } from '../../ui/Pager';
import { Empty, ErrorMessage, Loading } from '../../ui/states';
import { useProject } from '../session';

const PAGE_SIZE = 25;

/** The project's webhook endpoints, oldest first (the API never shows their secrets). */
export function WebhookList() {
  const { projectId, api } = useProject();
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const webhooks = useQuery({
    queryKey: ['webhooks', projectId, 'list', page],
    queryFn: ({ signal }) => api('get', '/api/v1/projects/{projectId}/webhooks', { path: { projectId }, query: { page, page_size: PAGE_SIZE }, signal }),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="webhooks-title">
      <div className="page-head">
        <h1 id="webhooks-title">Webhooks</h1>
        <Link className="button" to="new">
          New endpoint
        </Link>
      </div>
      <p className="help">Endpoints receive the project’s events, signed the Standard Webhooks way, and retried for 24 hours until they answer 2xx.</p>
      {webhooks.isPending ? <Loading label="Loading endpoints…" /> : null}
      {webhooks.isError ? <ErrorMessage error={webhooks.error} /> : null}
      {webhooks.data && webhooks.data.results.length === 0 ? (
        <Empty>
          No endpoints yet. <Link to="new">Create the first one</Link>.
        </Empty>
      ) : null}
      {webhooks.data && webhooks.data.results.length > 0 ? (
        <>
          <div className="table-scroll" tabIndex={0} role="region" aria-label="Webhook endpoints table, scrollable">
            <table>
              <caption className="visually-hidden">The project’s webhook endpoints, oldest first</caption>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">State</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {webhooks.data.results.map((webhook) => (
                  <tr key={webhook.id}>
                    <td className="identifier">
                      <Link to={webhook.id}>{webhook.url}</Link>
                    </td>
                    <td className="wrap">{webhook.events.join(', ')}</td>
                    <td>{webhook.enabled ? 'Enabled' : 'Disabled'}</td>
                    <td>{formatDateTime(webhook.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            label="Endpoint pages"
            page={webhooks.data.page}
            pageSize={webhooks.data.page_size}
            total={webhooks.data.total_results}
            onPage={(next) => setParams({ page: String(next) })}
          />
        </>
      ) : null}
    </section>
  );
}
