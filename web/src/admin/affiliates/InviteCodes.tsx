import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmMutationDialog } from '../../ui/ConfirmDialog';
import { formatDateTime } from '../../ui/format';
import { Pager } from '../../ui/Pager';
import { numeric, ScrollTable } from '../../ui/ScrollTable';
import { ListStates } from '../../ui/states';
import { useProject } from '../session';
import { useCanWrite } from '../key-role';

const PAGE_SIZE = 10;

/**
 * An affiliate's invite codes (the SDK's /referral_codes): each with its uses against its max_uses,
 * newest first. Disabling a code sets its max_uses to 0: the users it referred stay referred, and it
 * refers nobody more.
 */
export function InviteCodes({ identifier, identifierType }: { identifier: string; identifierType: string }) {
  const { projectId, api } = useProject();
  const canWrite = useCanWrite();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [disabling, setDisabling] = useState<string | null>(null);
  const queryKey = ['invite-codes', projectId, identifierType, identifier];
  const codes = useQuery({
    queryKey: [...queryKey, page],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/referral_codes', {
        query: { user_identifier: identifier, user_identifier_type: identifierType, page, page_size: PAGE_SIZE },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
  const disable = useMutation({
    mutationFn: () => api('patch', '/api/v1/referral_codes/{code}', { path: { code: disabling ?? '' }, body: { max_uses: 0 } }),
    onSuccess: async () => {
      setDisabling(null);
      await queryClient.invalidateQueries({ queryKey });
    },
  });
  return (
    <section aria-labelledby="invite-codes-title">
      <h2 id="invite-codes-title">Invite codes</h2>
      <ListStates query={codes} loading="Loading invite codes…" empty="No invite codes." />
      {codes.data && codes.data.results.length > 0 ? (
        <>
          <ScrollTable
            labelledBy="invite-codes-title"
            caption="Invite codes"
            columns={['Code', numeric('Uses'), numeric('Users now'), 'Created', ...(canWrite ? ['Action'] : [])]}
          >
            {codes.data.results.map((code) => (
              <tr key={code.code}>
                <td className="identifier">{code.code}</td>
                <td className="number">
                  {code.max_uses === null
                    ? `${code.uses} / unlimited`
                    : code.max_uses === 0
                      ? `${code.uses} / disabled`
                      : `${code.uses} / ${code.max_uses}`}
                </td>
                <td className="number">{code.total_users}</td>
                <td>{formatDateTime(code.created_at)}</td>
                {canWrite ? (
                  <td>
                    {code.max_uses === 0 ? (
                      <span className="subtle">disabled</span>
                    ) : (
                      <button type="button" onClick={() => setDisabling(code.code)} aria-label={`Disable ${code.code}`}>
                        Disable
                      </button>
                    )}
                  </td>
                ) : null}
              </tr>
            ))}
          </ScrollTable>
          <Pager label="Invite code pages" list={{ page, page_size: PAGE_SIZE, total_results: codes.data.count }} onPage={setPage} />
        </>
      ) : null}
      <ConfirmMutationDialog
        open={disabling !== null}
        title={`Disable ${disabling ?? ''}?`}
        confirmLabel="Disable"
        mutation={disable}
        onClose={() => setDisabling(null)}
      >
        <p>The code will refer nobody more. The users it referred stay referred; its max_uses can be raised again through the API.</p>
      </ConfirmMutationDialog>
    </section>
  );
}
