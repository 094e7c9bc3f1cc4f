import { useEffect, useRef, useState } from 'react';

/**
 * A button for what cannot be undone, asked twice: the first press shows the question with
 * "yes" and Cancel in place (focus on "yes", Escape cancels), so the keyboard and a screen
 * reader meet the question where the button was, with no browser dialog.
 */
export function ConfirmButton({
  label,
  question,
  confirmLabel,
  onConfirm,
  pending = false,
  accessibleLabel,
}: {
  label: string;
  /** What will happen, in plain words. */
  question: string;
  confirmLabel: string;
  onConfirm(): void;
  pending?: boolean;
  /** The first button's name when its label alone is ambiguous (one per table row). */
  accessibleLabel?: string;
}) {
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" className="danger-outline" aria-label={accessibleLabel} onClick={() => setAsking(true)} disabled={pending}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={question} onKeyDown={(event) => event.key === 'Escape' && setAsking(false)}>
      <span className="confirm-question">{question}</span>
      <button
        ref={confirmRef}
        type="button"
        className="danger"
        disabled={pending}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
