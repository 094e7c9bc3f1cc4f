import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import type { ApiResult } from '../../api/client';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { formatDateTime } from '../../ui/format';
import { PagedTable } from '../../ui/PagedTable';
import { pageFromUrl } from '../../ui/Pager';
import { useAdminSession, useProject } from '../session';

type ApiKey = ApiResult<'/api/v1/projects/{projectId}/api-keys', 'get'>['results'][number];

const PAGE_SIZE = 25;

/**
 * Whether this is (very likely) the key this tab is signed in with. The API lists keys by their
 * first characters only (the role's prefix and 4 random ones), never by secret; two keys of a project
 * sharing them is a one-in-millions chance, and then both are flagged, which errs on the safe side.
 */
function isSessionKey(key: ApiKey, sessionKey: string): boolean {
  return sessionKey.startsWith(key.key_prefix);
}

/** The project's active keys (never their secrets), each revocable after a confirmation. */
export function ApiKeyList() {
  const { projectId, api } = useProject();
  const { credentials } = useAdminSession();
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const page = pageFromUrl(params);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [revoked, setRevoked] = useState<ApiKey | null>(null);
  const keys = useQuery({
    queryKey: ['api-keys', projectId, page],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/api-keys', { path: { projectId }, query: { page, page_size: PAGE_SIZE }, signal }),
    placeholderData: keepPreviousData,
  });
  const revoke = useMutation({
    mutationFn: (key: ApiKey) => api('delete', '/api/v1/projects/{projectId}/api-keys/{keyId}', { path: { projectId, keyId: key.id } }),
    onSuccess: async (_nothing, key) => {
      setRevoking(null);
      setRevoked(key);
      // Revoking this tab's own key ends the session here: the next read answers 401 and the sign-in says why.
      await queryClient.invalidateQueries({ queryKey: ['api-keys', projectId] });
    },
  });
  const cancel = () => {
    revoke.reset();
    setRevoking(null);
  };
  const revokingOwn = revoking !== null && isSessionKey(revoking, credentials?.apiKey ?? '');

  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">Active keys</h2>
      <div role="status" aria-live="polite">
        {revoked ? `Revoked “${revoked.name}”: it is refused from now on.` : ''}
      </div>
      <PagedTable
        query={keys}
        loading="Loading keys…"
        empty="No active keys on this page."
        table={{
          label: 'API keys table, scrollable',
          caption: 'The project’s active API keys',
          columns: ['Name', 'Role', 'Key starts with', 'Created', 'Action'],
        }}
        row={(key) => (
          <tr key={key.id}>
            <td>
              <span className="key-name">{key.name}</span>
              {isSessionKey(key, credentials?.apiKey ?? '') ? <strong className="subtle"> (signed in with it)</strong> : null}
            </td>
            <td>
              <code>{key.role}</code>
            </td>
            <td className="identifier">{key.key_prefix}…</td>
            <td>{formatDateTime(key.created_at)}</td>
            <td>
              <button type="button" className="danger" onClick={() => setRevoking(key)} aria-label={`Revoke ${key.name}`}>
                Revoke
              </button>
            </td>
          </tr>
        )}
        pagerLabel="Key pages"
        onPage={(next) => setParams({ page: String(next) })}
      />
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke “${revoking?.name ?? ''}”?`}
        confirmLabel={revokingOwn ? 'Revoke and sign out' : 'Revoke key'}
        pending={revoke.isPending}
        error={revoke.error}
        onConfirm={() => revoking && revoke.mutate(revoking)}
        onCancel={cancel}
      >
        <p>Every request with this {revoking?.role} key is refused (401) from then on. This cannot be undone.</p>
        {revokingOwn ? (
          <p className="warning">
            <strong>This is the key you are signed in with.</strong> Revoking it signs you out of this dashboard at once, and you can sign in again
            only with the secret of another admin key. If you have none stored, create one first.
          </p>
        ) : null}
      </ConfirmDialog>
    </section>
  );
}
