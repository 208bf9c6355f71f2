// PostgreSQL's refusals sorted by what a caller can do about them.

/**
 * SQLSTATE class 22 (data exception): the server refuses the values themselves (a NUL in text, a
 * number out of range). Retrying the same values fails the same way.
 */
export function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('22');
}
