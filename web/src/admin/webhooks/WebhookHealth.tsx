import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useProject } from '../session';
import { webhookHealth } from './delivery-words';

const PAGE_SIZE = 20;
/** While a delivery on the page is pending, the page is read again this often, so its outcome shows without a reload. */
const PENDING_REFRESH_MS = 1_000;

/** A page of an endpoint's deliveries, newest first: the log's page, and (page 1) what the endpoint's health is read from. */
export function useDeliveryPage(webhookId: string, page: number) {
  const { projectId, api } = useProject();
  return useQuery({
    queryKey: ['webhooks', projectId, webhookId, 'deliveries', page],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/webhooks/{webhookId}/deliveries', {
        path: { projectId, webhookId },
        query: { page, page_size: PAGE_SIZE },
        signal,
      }),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.data?.results.some((delivery) => delivery.status === 'pending') ? PENDING_REFRESH_MS : false),
  });
}

/** An endpoint's state and health in words, from its newest deliveries ("Failing: the last 5 deliveries got HTTP 404"). */
export function WebhookHealth({ webhookId, enabled }: { webhookId: string; enabled: boolean }) {
  const newest = useDeliveryPage(webhookId, 1);
  if (!enabled) return <>{webhookHealth(false, [])}</>;
  if (newest.isPending) return <>Enabled</>;
  if (newest.isError) return <>Enabled (its deliveries could not be read: {newest.error.message})</>;
  const health = webhookHealth(true, newest.data.results);
  return <span className={health.startsWith('Failing') ? 'health-failing' : undefined}>{health}</span>;
}
