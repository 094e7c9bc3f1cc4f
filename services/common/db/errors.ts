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
