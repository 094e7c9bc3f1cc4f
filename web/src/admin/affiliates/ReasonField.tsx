import { useId } from 'react';
import { FieldError } from '../../ui/field-errors';

/** The reason an admin gives for flagging or suspending an affiliate (kept in its history), with the API's problem under it. */
export function ReasonField({ value, onChange, error }: { value: string; onChange: (value: string) => void; error: string | undefined }) {
  const ids = { reason: useId(), reasonError: useId() };
  return (
    <>
      <label htmlFor={ids.reason}>Reason (kept in its history)</label>
      <textarea
        id={ids.reason}
        value={value}
        maxLength={500}
        onChange={(event) => onChange(event.target.value)}
        rows={3}
        required
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? ids.reasonError : undefined}
      />
      <FieldError id={ids.reasonError} message={error} />
    </>
  );
}
