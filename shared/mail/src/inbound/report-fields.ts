// Header-style fields as reports carry them: the groups of an RFC 3464 delivery-status part
// (one per-message group, then one group per recipient, separated by blank lines), the fields of
// an RFC 5965 feedback-report part and the header block of a returned message. Reports come from
// every kind of MTA, so this reads them leniently: CRLF, LF or CR line ends, folded lines,
// field names in any case, lines that are no field skipped rather than refused.

/** One field: its name lower-cased, its value unfolded (whitespace runs collapsed) and trimmed. */
export interface Field {
  name: string;
  value: string;
}

/** A group of fields in the order they were written. */
export type FieldGroup = Field[];

// RFC 5322 field-name: printable US-ASCII except the colon. Whitespace before the colon is
// tolerated (obsolete syntax some MTAs still write).
const FIELD_LINE = /^([!-9;-~]+)[ \t]*:(.*)$/;

function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

function finish(group: Array<{ name: string; raw: string }>): FieldGroup {
  return group.map((f) => ({ name: f.name, value: f.raw.replace(/\s+/g, ' ').trim() }));
}

/** Every group of fields in `text`, groups separated by blank lines; empty groups dropped. */
export function fieldGroups(text: string): FieldGroup[] {
  const groups: FieldGroup[] = [];
  let current: Array<{ name: string; raw: string }> = [];
  // The field a continuation line belongs to; null after a line that was no field, so the
  // continuation of garbage does not land on the field before it.
  let open: { name: string; raw: string } | null = null;
  for (const line of splitLines(text)) {
    if (line.trim() === '') {
      if (current.length > 0) groups.push(finish(current));
      current = [];
      open = null;
      continue;
    }
    if (line.startsWith(' ') || line.startsWith('\t')) {
      if (open) open.raw += ` ${line}`;
      continue;
    }
    const m = FIELD_LINE.exec(line);
    if (!m) {
      open = null;
      continue;
    }
    open = { name: m[1]!.toLowerCase(), raw: m[2]! };
    current.push(open);
  }
  if (current.length > 0) groups.push(finish(current));
  return groups;
}

/** The fields of a message's header block: everything up to the first blank line. */
export function headerBlock(text: string): FieldGroup {
  const lines = splitLines(text);
  let start = 0;
  while (start < lines.length && lines[start]!.trim() === '') start += 1;
  let end = start;
  while (end < lines.length && lines[end]!.trim() !== '') end += 1;
  return fieldGroups(lines.slice(start, end).join('\n'))[0] ?? [];
}

/** The first value of a field (name in any case), or null when absent or empty. */
export function fieldValue(group: FieldGroup, name: string): string | null {
  const wanted = name.toLowerCase();
  const value = group.find((f) => f.name === wanted)?.value;
  return value ? value : null;
}

export function hasField(group: FieldGroup, name: string): boolean {
  const wanted = name.toLowerCase();
  return group.some((f) => f.name === wanted);
}

/**
 * The value of a typed field without its type: `rfc822; ann@example.org` → `ann@example.org`,
 * `smtp; 550 5.1.1 ...` → `550 5.1.1 ...` (RFC 3464 address-type and diagnostic-type).
 */
export function withoutType(value: string): string {
  return value.replace(/^[A-Za-z0-9][A-Za-z0-9.+-]*[ \t]*;[ \t]*/, '').trim();
}

/**
 * A lower-cased bare address from a typed address field or a path (`rfc822;<Ann@Example.org>`),
 * or null when there is no address in it. Lenient on purpose: a report names the address as the
 * recipient's server wrote it, and it is compared, not sent to.
 */
export function reportAddress(value: string | null): string | null {
  if (value === null) return null;
  let bare = withoutType(value);
  const angle = /<([^<>]*)>/.exec(bare);
  if (angle) bare = angle[1]!;
  bare = bare.trim().toLowerCase();
  const at = bare.lastIndexOf('@');
  if (at <= 0 || at === bare.length - 1 || /\s/.test(bare)) return null;
  return bare;
}
