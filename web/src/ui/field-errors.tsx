import { useState } from 'react';
import { ApiError } from '../api/client';
import { fieldMessage } from './error-messages';

/**
 * The API's field violations by field path (`permanent_address.postal_code`), each in words
 * (error-messages.ts), so each input shows its own problem next to it. The first reason per field is kept.
 */
export function fieldErrors(error: unknown): Record<string, string> {
  const byField: Record<string, string> = {};
  if (error instanceof ApiError) for (const detail of error.details) byField[detail.field] ??= fieldMessage(detail.reason);
  return byField;
}

/**
 * fieldErrors of a form's last refusal, less the fields edited since: a problem goes away as soon
 * as the person changes the field it is about (`edited(field)` from its onChange), and the next
 * refusal (a new error) shows all of its own again. `error` is the refusal less the edited fields'
 * violations, for the banner; null once every field it named was edited, or at the first edit when
 * it named none (a refusal of the whole form, such as a duplicate, is about what was sent).
 */
export function useFieldErrors(refusal: unknown): { errors: Record<string, string>; error: unknown; edited(field: string): void } {
  const [edits, setEdits] = useState<{ of: unknown; fields: ReadonlySet<string> }>({ of: null, fields: new Set() });
  const editedFields = edits.of === refusal ? edits.fields : new Set<string>();
  const all = fieldErrors(refusal);
  const errors = Object.fromEntries(Object.entries(all).filter(([field]) => !editedFields.has(field)));
  return {
    errors,
    error: uncorrected(refusal, editedFields),
    edited: (field) => {
      if (refusal && !editedFields.has(field)) setEdits({ of: refusal, fields: new Set([...editedFields, field]) });
    },
  };
}

/** The refusal less the violations of the edited fields (null when none is left), so a banner counts only what is still wrong. */
function uncorrected(refusal: unknown, edited: ReadonlySet<string>): unknown {
  if (edited.size === 0) return refusal;
  if (!(refusal instanceof ApiError) || refusal.details.length === 0) return null;
  const left = refusal.details.filter((detail) => !edited.has(detail.field));
  return left.length === 0 ? null : new ApiError(refusal.status, refusal.code, refusal.message, left);
}

export function FieldError({ id, message }: { id?: string; message: string | undefined }) {
  return (
    <p id={id} className="field-error" hidden={!message}>
      {message}
    </p>
  );
}
