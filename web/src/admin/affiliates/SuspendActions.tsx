import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmMutationDialog } from '../../ui/ConfirmDialog';
import { fieldErrors } from '../../ui/field-errors';
import { useProject } from '../session';
import { useAffiliateRefresh } from './refresh';
import { ReasonField } from './ReasonField';

/**
 * Suspend an affiliate (a reason, confirmed) or reactivate a suspended one (confirmed). While
 * suspended it earns nothing and its codes refer nobody; reactivated, it earns again from then on,
 * not for the conversions in between. What was done is said in a sentence.
 */
export function SuspendActions({ identifier, identifierType, status }: { identifier: string; identifierType: string; status: string }) {
  const [open, setOpen] = useState(false);
  const [done, setDone] = useState('');
  const refresh = useAffiliateRefresh(identifier, identifierType);
  const finished = async (sentence: string) => {
    setOpen(false);
    setDone(sentence);
    await refresh();
  };
  const suspended = status === 'suspended';
  return (
    <div className="review-actions">
      <button
        type="button"
        onClick={() => {
          setDone('');
          setOpen(true);
        }}
      >
        {suspended ? 'Reactivate…' : 'Suspend…'}
      </button>
      {open && suspended ? (
        <ReactivateDialog identifier={identifier} identifierType={identifierType} onClose={() => setOpen(false)} onDone={finished} />
      ) : null}
      {open && !suspended ? (
        <SuspendDialog identifier={identifier} identifierType={identifierType} onClose={() => setOpen(false)} onDone={finished} />
      ) : null}
      <p role="status" aria-live="polite" className={done ? 'state' : undefined}>
        {done}
      </p>
    </div>
  );
}

interface DialogProps {
  identifier: string;
  identifierType: string;
  onClose(): void;
  onDone(sentence: string): Promise<void>;
}

function SuspendDialog({ identifier, identifierType, onClose, onDone }: DialogProps) {
  const { projectId, api } = useProject();
  const [reason, setReason] = useState('');
  const suspend = useMutation({
    mutationFn: () =>
      api('post', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}/suspend', {
        path: { projectId, userIdentifier: identifier },
        query: { identifier_type: identifierType },
        body: { reason: reason.trim() },
      }),
    onSuccess: () => onDone('Suspended: it earns nothing and its codes refer nobody until it is reactivated.'),
  });
  const reasonError = fieldErrors(suspend.error).reason;
  return (
    <ConfirmMutationDialog open title="Suspend this affiliate?" confirmLabel="Suspend the affiliate" mutation={suspend} onClose={onClose}>
      <p>From now until it is reactivated it earns nothing for conversions and its codes refer nobody. The users it referred stay its referrals.</p>
      <ReasonField value={reason} onChange={setReason} error={reasonError} />
    </ConfirmMutationDialog>
  );
}

function ReactivateDialog({ identifier, identifierType, onClose, onDone }: DialogProps) {
  const { projectId, api } = useProject();
  const reactivate = useMutation({
    mutationFn: () =>
      api('post', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}/reactivate', {
        path: { projectId, userIdentifier: identifier },
        query: { identifier_type: identifierType },
      }),
    onSuccess: () => onDone('Reactivated: it earns again from its next conversions, and its codes refer again.'),
  });
  return (
    <ConfirmMutationDialog open title="Reactivate this affiliate?" confirmLabel="Reactivate the affiliate" mutation={reactivate} onClose={onClose}>
      <p>It earns again for conversions from now on, not for those made while it was suspended.</p>
    </ConfirmMutationDialog>
  );
}
