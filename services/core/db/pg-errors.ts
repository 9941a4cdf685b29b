/**
 * PostgreSQL errors that say something about the caller's request rather than the service. A row whose
 * foreign key finds nothing (SQLSTATE 23503) means the row it names — a scan, an account — was deleted
 * after the caller's request read it: the request's `not_found`, not a server fault.
 */
export function isForeignKeyViolation(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '23503';
}
