import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { ConfirmMutationDialog } from '../../ui/ConfirmDialog';
import { formatDateTime } from '../../ui/format';
import { LoadError, Loading } from '../../ui/states';
import { useProject } from '../session';
import { DeliveryLog } from './DeliveryLog';
import { WebhookHealth } from './WebhookHealth';
import { WebhookForm, type WebhookSettings } from './WebhookForm';
import { ChangesFieldset, WritesOnly } from '../key-role';

/** One endpoint: its settings (changed with PATCH), its deletion, and its delivery log. */
export function WebhookDetail() {
  const { webhookId = '' } = useParams();
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const webhook = useQuery({
    queryKey: ['webhooks', projectId, webhookId],
    queryFn: ({ signal }) => api('get', '/api/v1/projects/{projectId}/webhooks/{webhookId}', { path: { projectId, webhookId }, signal }),
  });
  const update = useMutation({
    mutationFn: (settings: WebhookSettings) =>
      api('patch', '/api/v1/projects/{projectId}/webhooks/{webhookId}', { path: { projectId, webhookId }, body: settings }),
    onSuccess: async (updated) => {
      queryClient.setQueryData(['webhooks', projectId, webhookId], updated);
      await queryClient.invalidateQueries({ queryKey: ['webhooks', projectId, 'list'] });
    },
  });
  const remove = useMutation({
    mutationFn: () => api('delete', '/api/v1/projects/{projectId}/webhooks/{webhookId}', { path: { projectId, webhookId } }),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: ['webhooks', projectId, webhookId] });
      await queryClient.invalidateQueries({ queryKey: ['webhooks', projectId, 'list'] });
      await navigate('..', { relative: 'path', replace: true });
    },
  });

  return (
    <section aria-labelledby="webhook-title">
      <p className="breadcrumb">
        <Link to="..">Webhooks</Link> /
      </p>
      {webhook.isPending ? <Loading label="Loading the endpoint…" /> : null}
      {webhook.isError ? <LoadError query={webhook} /> : null}
      {webhook.data ? (
        <>
          <div className="page-head">
            <h1 id="webhook-title" className="identifier">
              {webhook.data.url}
            </h1>
            <WritesOnly>
              <button type="button" className="danger" onClick={() => setConfirmingDelete(true)}>
                Delete endpoint
              </button>
            </WritesOnly>
          </div>
          <dl className="facts">
            <div>
              <dt>State</dt>
              <dd>
                <WebhookHealth webhookId={webhookId} enabled={webhook.data.enabled} />
              </dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>{formatDateTime(webhook.data.created_at)}</dd>
            </div>
            <div>
              <dt>Changed</dt>
              <dd>{formatDateTime(webhook.data.updated_at)}</dd>
            </div>
          </dl>
          <section aria-labelledby="webhook-settings-title">
            <h2 id="webhook-settings-title">Settings</h2>
            {update.isSuccess ? (
              <p role="status" className="subtle">
                Saved.
              </p>
            ) : null}
            <ChangesFieldset>
              <WebhookForm
                // A fresh form from each saved version.
                key={webhook.data.updated_at}
                initial={webhook.data}
                submitLabel="Save changes"
                pendingLabel="Saving…"
                pending={update.isPending}
                error={update.error}
                errorTitle="Nothing was changed"
                onSubmit={(settings) => update.mutate(settings)}
              />
            </ChangesFieldset>
          </section>
          <DeliveryLog webhookId={webhookId} />
          <ConfirmMutationDialog
            open={confirmingDelete}
            title="Delete this endpoint?"
            confirmLabel="Delete endpoint"
            mutation={remove}
            onClose={() => setConfirmingDelete(false)}
          >
            <p>
              Events will no longer be sent to <span className="identifier">{webhook.data.url}</span>, and its delivery log is deleted with it. This
              cannot be undone.
            </p>
          </ConfirmMutationDialog>
        </>
      ) : null}
    </section>
  );
}
