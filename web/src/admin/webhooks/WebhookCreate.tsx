import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { OneTimeSecret } from '../../ui/OneTimeSecret';
import { useProject } from '../session';
import { WebhookForm, type WebhookSettings } from './WebhookForm';

/**
 * A new endpoint. The API answers with its signing secret, this once: it goes to this screen's
 * state only (the mutation keeps the endpoint without it), is shown with a copy button, and is
 * forgotten when the admin moves on to the endpoint.
 */
export function WebhookCreate() {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [secret, setSecret] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: async (settings: WebhookSettings) => {
      const { secret: shownOnce, ...webhook } = await api('post', '/api/v1/projects/{projectId}/webhooks', { path: { projectId }, body: settings });
      setSecret(shownOnce);
      return webhook;
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhooks', projectId] }),
  });
  return (
    <section aria-labelledby="new-webhook-title">
      <p className="breadcrumb">
        <Link to="..">Webhooks</Link> /
      </p>
      <h1 id="new-webhook-title">New webhook endpoint</h1>
      {create.data && secret ? (
        <>
          <p>
            The endpoint for <span className="identifier">{create.data.url}</span> is created.
          </p>
          <OneTimeSecret
            what="signing secret"
            secret={secret}
            doneLabel="I have stored it: open the endpoint"
            onDone={() => void navigate(`../${create.data.id}`, { relative: 'path', replace: true })}
          />
        </>
      ) : (
        <WebhookForm
          initial={{ url: '', events: [], enabled: true }}
          submitLabel="Create endpoint"
          pendingLabel="Creating…"
          pending={create.isPending}
          error={create.error}
          errorTitle="The endpoint was not created"
          onSubmit={(settings) => create.mutate(settings)}
        />
      )}
    </section>
  );
}
