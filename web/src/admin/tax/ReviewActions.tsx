import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { ErrorMessage } from '../../ui/states';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { FieldError, fieldErrors } from '../../ui/field-errors';
import { useProject } from '../session';
import { allowedActions, type RecordOwner, type RecordStatus, taxKeys } from './tax-records';

/**
 * Approve (one click) and revoke (a reason the affiliate will read, confirmed in a dialog) for one
 * record. After either, every tax list of the project is read again, so the queue shows the change.
 */
export function ReviewActions({
  owner,
  status,
  name,
}: {
  owner: RecordOwner;
  status: RecordStatus;
  /** Who the record is for, in the buttons' accessible names ("Approve Ada Lovelace"). */
  name: string;
}) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const [revoking, setRevoking] = useState(false);
  const target = { path: { projectId, userIdentifier: owner.identifier }, query: { user_identifier_type: owner.identifierType } };
  // Every tax list of the project, and the record page's own read, are read again.
  const reviewed = async () => {
    await queryClient.invalidateQueries({ queryKey: taxKeys.submissions(projectId) });
  };
  const approve = useMutation({
    mutationFn: () => api('post', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}/tax-info/approve', target),
    onSuccess: reviewed,
  });
  const allowed = allowedActions(status);
  if (!allowed.approve && !allowed.revoke) return null;
  return (
    <div className="review-actions">
      <div className="review-buttons">
        {allowed.approve ? (
          <button type="button" className="primary" onClick={() => approve.mutate()} disabled={approve.isPending} aria-label={`Approve ${name}`}>
            {approve.isPending ? 'Approving…' : 'Approve'}
          </button>
        ) : null}
        {allowed.revoke ? (
          <button type="button" onClick={() => setRevoking(true)} aria-label={`Revoke ${name}…`}>
            Revoke…
          </button>
        ) : null}
      </div>
      {approve.isError ? <ErrorMessage error={approve.error} title="Not approved" /> : null}
      {revoking ? <RevokeDialog owner={owner} name={name} onClose={() => setRevoking(false)} onRevoked={reviewed} /> : null}
    </div>
  );
}

/** The confirmation before a revoke (the shared modal dialog: focus kept inside, Escape cancels), asking for the reason. */
function RevokeDialog({ owner, name, onClose, onRevoked }: { owner: RecordOwner; name: string; onClose(): void; onRevoked(): Promise<void> }) {
  const { projectId, api } = useProject();
  const [reason, setReason] = useState('');
  const ids = { reason: useId(), reasonError: useId() };
  const revoke = useMutation({
    mutationFn: () =>
      api('post', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}/tax-info/revoke', {
        path: { projectId, userIdentifier: owner.identifier },
        query: { user_identifier_type: owner.identifierType },
        body: { reason },
      }),
    onSuccess: async () => {
      onClose();
      await onRevoked();
    },
  });
  const reasonError = fieldErrors(revoke.error).reason;
  return (
    <ConfirmDialog
      open
      title={`Revoke the tax form of ${name}?`}
      confirmLabel="Revoke the form"
      pending={revoke.isPending}
      error={revoke.isError && !reasonError ? revoke.error : null}
      onConfirm={() => revoke.mutate()}
      onCancel={onClose}
    >
      <p>Their claims stay restricted until a new form is approved. They see the reason and may send a new form.</p>
      <label htmlFor={ids.reason}>Reason (shown to the affiliate)</label>
      <textarea
        id={ids.reason}
        value={reason}
        onChange={(event) => setReason(event.target.value)}
        rows={3}
        required
        aria-invalid={reasonError ? true : undefined}
        aria-describedby={reasonError ? ids.reasonError : undefined}
      />
      <FieldError id={ids.reasonError} message={reasonError} />
    </ConfirmDialog>
  );
}
