/** PostgreSQL error classes the repositories turn into domain outcomes. */
interface PgError {
  code?: string;
  constraint?: string;
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const pgError = error as PgError;
  return pgError?.code === '23505' && (constraint === undefined || pgError.constraint === constraint);
}

export function isForeignKeyViolation(error: unknown): boolean {
  return (error as PgError)?.code === '23503';
}

/**
 * The statement was cancelled by `statement_timeout` (57014) or gave up waiting for a lock under
 * `lock_timeout` (55P03): nothing it did was kept.
 */
export function isStatementTimeout(error: unknown): boolean {
  const code = (error as PgError)?.code;
  return code === '57014' || code === '55P03';
}

/**
 * The transaction lost a deadlock (40P01) or a serialization conflict (40001): PostgreSQL rolled it
 * back whole, so running it again is safe.
 */
export function isTransientConflict(error: unknown): boolean {
  const code = (error as PgError)?.code;
  return code === '40P01' || code === '40001';
}
