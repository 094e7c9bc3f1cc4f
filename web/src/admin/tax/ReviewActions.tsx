import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { ErrorMessage } from '../../ui/states';
import { FieldError, fieldErrors } from '../../portal/tax/field-errors';
import { useProject } from '../session';
import { allowedActions, type RecordOwner, type RecordStatus, type ReviewedStatus, taxKeys } from './tax-records';

/**
 * Approve (one click) and revoke (a reason the affiliate will read, confirmed in a dialog) for one
 * record. After either, every tax list of the project is read again, so the queue shows the change.
 */
export function ReviewActions({
  owner,
  status,
  name,
  onReviewed,
}: {
  owner: RecordOwner;
  status: RecordStatus;
  /** Who the record is for, in the buttons' accessible names ("Approve Ada Lovelace"). */
  name: string;
  /** Called with the action taken and the affiliate's new status, once the API accepted it. */
  onReviewed?(action: 'approve' | 'revoke', status: ReviewedStatus): void;
}) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const [revoking, setRevoking] = useState(false);
  const target = { path: { projectId, userIdentifier: owner.identifier }, query: { user_identifier_type: owner.identifierType } };
  const reviewed = (action: 'approve' | 'revoke') => async (next: ReviewedStatus) => {
    onReviewed?.(action, next);
    await queryClient.invalidateQueries({ queryKey: taxKeys.submissions(projectId) });
  };
  const approve = useMutation({
    mutationFn: () => api('post', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}/tax-info/approve', target),
    onSuccess: reviewed('approve'),
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
      {revoking ? <RevokeDialog owner={owner} name={name} onClose={() => setRevoking(false)} onRevoked={reviewed('revoke')} /> : null}
    </div>
  );
}

/** The confirmation before a revoke: a modal dialog (focus kept inside, Escape cancels) asking for the reason. */
function RevokeDialog({ owner, name, onClose, onRevoked }: { owner: RecordOwner; name: string; onClose(): void; onRevoked(status: ReviewedStatus): Promise<void> }) {
  const { projectId, api } = useProject();
  const dialog = useRef<HTMLDialogElement>(null);
  const [reason, setReason] = useState('');
  const ids = { title: useId(), reason: useId(), reasonError: useId() };
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  const revoke = useMutation({
    mutationFn: () =>
      api('post', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}/tax-info/revoke', {
        path: { projectId, userIdentifier: owner.identifier },
        query: { user_identifier_type: owner.identifierType },
        body: { reason },
      }),
    onSuccess: async (status) => {
      onClose();
      await onRevoked(status);
    },
  });
  const reasonError = fieldErrors(revoke.error).reason;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    revoke.mutate();
  };
  return (
    <dialog ref={dialog} className="confirm-dialog" aria-labelledby={ids.title} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <h2 id={ids.title}>Revoke the tax form of {name}?</h2>
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
        {revoke.isError && !reasonError ? <ErrorMessage error={revoke.error} title="Not revoked" /> : null}
        <div className="actions">
          <button type="submit" className="danger" disabled={revoke.isPending}>
            {revoke.isPending ? 'Revoking…' : 'Revoke the form'}
          </button>
          <button type="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
