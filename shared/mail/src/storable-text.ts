// Text that arrives from outside (a smart host's reply, a report's Diagnostic-Code, a clicked
// URL) on its way into PostgreSQL: C0 control characters other than tab are dropped, because
// PostgreSQL refuses NUL in text and jsonb, and a record that can never be stored would stall
// its actor's partition.
export function storableText(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters removed
  return value.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, (c) => (c === '\n' || c === '\r' ? ' ' : ''));
}

export function storableOrNull(value: string | null): string | null {
  return value === null ? null : storableText(value);
}

/** True when a client-given string would be refused by PostgreSQL (it holds NUL). */
export function holdsNul(value: string): boolean {
  return value.includes('\u0000');
}
