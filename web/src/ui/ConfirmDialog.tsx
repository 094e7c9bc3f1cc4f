import { type ReactNode, useEffect, useId, useRef } from 'react';
import { ErrorMessage } from './states';

/**
 * A modal question before an action that cannot be undone (delete, revoke). The native <dialog>
 * shown with showModal() keeps focus inside it, closes on Escape and gives focus back to the
 * button that opened it; Cancel comes first, so Enter on the first focus does no harm.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  pending,
  error,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  pending: boolean;
  /** The API's refusal of the action, shown inside the dialog. */
  error: unknown;
  onConfirm(): void;
  onCancel(): void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="confirm-dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        // Escape: the parent decides (it owns `open`), so the dialog and its state never disagree.
        event.preventDefault();
        onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
      {error ? <ErrorMessage error={error} /> : null}
      <div className="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm} disabled={pending}>
          {pending ? 'Working…' : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** What ConfirmMutationDialog needs of a mutation that takes no variables (a useMutation result). */
interface ConfirmableMutation {
  isPending: boolean;
  error: unknown;
  mutate(): void;
  reset(): void;
}

/**
 * A ConfirmDialog that runs one mutation: "Working…" while it runs and its refusal inside the dialog;
 * Cancel forgets the refusal before closing, so the dialog opens clean the next time.
 */
export function ConfirmMutationDialog({
  mutation,
  onClose,
  ...dialog
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  mutation: ConfirmableMutation;
  onClose(): void;
}) {
  return (
    <ConfirmDialog
      {...dialog}
      pending={mutation.isPending}
      error={mutation.error}
      onConfirm={() => mutation.mutate()}
      onCancel={() => {
        mutation.reset();
        onClose();
      }}
    />
  );
}
