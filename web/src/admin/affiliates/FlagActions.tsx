import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmMutationDialog } from '../../ui/ConfirmDialog';
import { fieldErrors } from '../../ui/field-errors';
import { ErrorMessage } from '../../ui/states';
import { useProject } from '../session';
import { useAffiliateRefresh } from './refresh';
import { ReasonField } from './ReasonField';

/**
 * Flag (a reason, confirmed in a dialog) or unflag one affiliate. A flagged affiliate still earns,
 * but the payouts of its new conversions wait for an admin's review until it is unflagged. A
 * suspended affiliate offers neither (the API refuses to flag it). After either, the affiliate and
 * its history are read again.
 */
export function FlagActions({ identifier, identifierType, status }: { identifier: string; identifierType: string; status: string }) {
  const { projectId, api } = useProject();
  const [flagging, setFlagging] = useState(false);
  const target = { path: { projectId, userIdentifier: identifier }, query: { identifier_type: identifierType } };
  const changed = useAffiliateRefresh(identifier, identifierType);
  const unflag = useMutation({
    mutationFn: () => api('post', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}/unflag', target),
    onSuccess: changed,
  });
  if (status === 'active')
    return (
      <div className="review-actions">
        <button type="button" onClick={() => setFlagging(true)}>
          Flag for review…
        </button>
        {flagging ? (
          <FlagDialog identifier={identifier} identifierType={identifierType} onClose={() => setFlagging(false)} onFlagged={changed} />
        ) : null}
      </div>
    );
  if (status === 'flagged')
    return (
      <div className="review-actions">
        <button type="button" onClick={() => unflag.mutate()} disabled={unflag.isPending}>
          {unflag.isPending ? 'Unflagging…' : 'Unflag'}
        </button>
        {unflag.isError ? <ErrorMessage error={unflag.error} title="Not unflagged" /> : null}
      </div>
    );
  return null;
}

function FlagDialog({
  identifier,
  identifierType,
  onClose,
  onFlagged,
}: {
  identifier: string;
  identifierType: string;
  onClose(): void;
  onFlagged(): Promise<void>;
}) {
  const { projectId, api } = useProject();
  const [reason, setReason] = useState('');
  const flag = useMutation({
    mutationFn: () =>
      api('post', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}/flag', {
        path: { projectId, userIdentifier: identifier },
        query: { identifier_type: identifierType },
        body: { reason: reason.trim() },
      }),
    onSuccess: async () => {
      onClose();
      await onFlagged();
    },
  });
  const reasonError = fieldErrors(flag.error).reason;
  return (
    <ConfirmMutationDialog open title="Flag this affiliate for review?" confirmLabel="Flag the affiliate" mutation={flag} onClose={onClose}>
      <p>It still earns and its codes still refer, but the payouts of its new conversions wait for an admin’s review until it is unflagged.</p>
      <ReasonField value={reason} onChange={setReason} error={reasonError} />
    </ConfirmMutationDialog>
  );
}
