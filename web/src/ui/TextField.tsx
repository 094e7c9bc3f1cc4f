import type { HTMLAttributes } from 'react';
import { FieldError } from './field-errors';

/** A labelled text input with its API problem under it, tied to it for screen readers (aria-invalid, aria-describedby). */
export function TextField({
  id,
  label,
  value,
  onChange,
  error,
  type = 'text',
  inputMode,
}: {
  id: string;
  label: string;
  value: string;
  onChange(value: string): void;
  error: string | undefined;
  type?: 'text' | 'url';
  inputMode?: HTMLAttributes<HTMLInputElement>['inputMode'];
}) {
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type={type}
        inputMode={inputMode}
        autoComplete="off"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={Boolean(error)}
        aria-describedby={`${id}-error`}
      />
      <FieldError id={`${id}-error`} message={error} />
    </>
  );
}
