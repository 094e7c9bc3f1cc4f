import { ApiError } from '../api/client';

/**
 * The API's field violations by field path (`permanent_address.postal_code`), so each input shows
 * its own problem next to it. The first reason per field is kept.
 */
export function fieldErrors(error: unknown): Record<string, string> {
  const byField: Record<string, string> = {};
  if (error instanceof ApiError) for (const detail of error.details) byField[detail.field] ??= detail.reason;
  return byField;
}

export function FieldError({ id, message }: { id?: string; message: string | undefined }) {
  return (
    <p id={id} className="field-error" hidden={!message}>
      {message}
    </p>
  );
}
