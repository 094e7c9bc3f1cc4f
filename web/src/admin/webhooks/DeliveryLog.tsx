import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router-dom';
import { formatDateTime, shortIdentifier } from '../../ui/format';
import { pageFromUrl, Pager } from '../../ui/Pager';
import { ErrorMessage, ListStates } from '../../ui/states';
import { useCanWrite } from '../key-role';
import { useProject } from '../session';
import { deliveryStatusText, lastAnswer } from './delivery-words';
import { useDeliveryPage } from './WebhookHealth';
import { numeric, ScrollTable } from '../../ui/ScrollTable';

/**
 * An endpoint's deliveries, newest first (page in the URL): status, attempts, the last answer and
 * the next attempt, with a resend per delivery. The resent delivery's outcome is announced as the
 * log catches up with it.
 */
export function DeliveryLog({ webhookId }: { webhookId: string }) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const page = pageFromUrl(params);
  const deliveries = useDeliveryPage(webhookId, page);
  const canWrite = useCanWrite();
  const resend = useMutation({
    mutationFn: (deliveryId: string) =>
      api('post', '/api/v1/projects/{projectId}/webhooks/{webhookId}/deliveries/{deliveryId}/resend', { path: { projectId, webhookId, deliveryId } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhooks', projectId, webhookId, 'deliveries'] }),
  });
  // The resent delivery as the log shows it now (the resend's own answer until the log has it).
  const resent = resend.data ? (deliveries.data?.results.find((delivery) => delivery.id === resend.data.id) ?? resend.data) : undefined;
  const rows = deliveries.data?.results ?? [];

  return (
    <section aria-labelledby="deliveries-title">
      <div className="page-head">
        <h2 id="deliveries-title">Deliveries</h2>
        <button type="button" onClick={() => void deliveries.refetch()} disabled={deliveries.isFetching}>
          {deliveries.isFetching ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      <div role="status" aria-live="polite" className="resend-result">
        {resent ? `Resent ${resent.event_type} (event ${resent.event_id}): ${sentenceCase(deliveryStatusText(resent))}.` : ''}
      </div>
      {resend.isError ? <ErrorMessage error={resend.error} title="Not resent" /> : null}
      <ListStates
        query={deliveries}
        loading="Loading deliveries…"
        empty="No deliveries yet: the endpoint gets one for each event it subscribes to."
      />
      {deliveries.data && rows.length > 0 ? (
        <>
          <ScrollTable
            label="Deliveries table, scrollable"
            caption="The endpoint’s deliveries, newest first"
            columns={['Event', 'Status', numeric('Attempts'), 'Last answer', 'Next attempt', 'Created', 'Delivered', ...(canWrite ? ['Action'] : [])]}
          >
            {rows.map((delivery) => (
              <tr key={delivery.id} data-delivery-id={delivery.id}>
                <td>
                  <code>{delivery.event_type}</code>
                  <br />
                  <span className="subtle identifier" title={delivery.event_id}>
                    {shortIdentifier(delivery.event_id)}
                  </span>
                </td>
                <td className="delivery-status wrap">{deliveryStatusText(delivery)}</td>
                <td className="number">{delivery.attempts}</td>
                <td className="wrap">{lastAnswer(delivery)}</td>
                <td>{formatDateTime(delivery.next_attempt_at)}</td>
                <td>{formatDateTime(delivery.created_at)}</td>
                <td>{formatDateTime(delivery.delivered_at)}</td>
                {canWrite ? (
                  <td>
                    <button
                      type="button"
                      onClick={() => resend.mutate(delivery.id)}
                      disabled={resend.isPending}
                      aria-label={`Resend ${delivery.event_type} event ${delivery.event_id}`}
                    >
                      Resend
                    </button>
                  </td>
                ) : null}
              </tr>
            ))}
          </ScrollTable>
          <Pager label="Delivery pages" list={deliveries.data} onPage={(next) => setParams({ page: String(next) })} />
        </>
      ) : null}
    </section>
  );
}

/** A status continuing a sentence after its colon: "delivered after 6 attempts". */
function sentenceCase(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
