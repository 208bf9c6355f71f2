// The Prefer request header (RFC 7240): a client states preferences the server may honour, and
// names those it honoured in Preference-Applied. Preferences come as one comma-separated list,
// which several Prefer headers extend (Node joins repeated headers with ", "):
//   Prefer = 1#preference
//   preference = token [ BWS "=" BWS word ] *( OWS ";" [ OWS parameter ] )
//   parameter  = token [ BWS "=" BWS word ]       word = token / quoted-string
// Names are case-insensitive (kept lowercased here); values are kept as sent, unquoted. A
// preference named more than once counts as first given; an element that does not parse is
// ignored, never refused (RFC 7240 section 2). What a preference means is its operation's.

export const PREFERENCE_APPLIED_HEADER = 'Preference-Applied';

export interface Preference {
  /** The value as sent (a quoted-string unquoted); null when the preference has none. */
  value: string | null;
  /** Parameters after `;`, by lowercased name (first given counts); null when one has no value. */
  params: ReadonlyMap<string, string | null>;
}

const TCHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
const OWS = /[ \t]/;

/** Every well-formed preference of the Prefer header(s), by lowercased name. */
export function parsePreferHeader(header: string | readonly string[] | undefined): Map<string, Preference> {
  const prefs = new Map<string, Preference>();
  if (header === undefined) return prefs;
  const text = typeof header === 'string' ? header : header.join(',');
  let at = 0;

  const skip = (chars: RegExp) => {
    while (at < text.length && chars.test(text[at]!)) at += 1;
  };
  const token = (): string => {
    const start = at;
    skip(TCHAR);
    return text.slice(start, at);
  };
  /** A token or a quoted-string (unquoted), or null when neither starts here. */
  const word = (): string | null => {
    if (text[at] !== '"') {
      const t = token();
      return t === '' ? null : t;
    }
    let value = '';
    for (at += 1; at < text.length; at += 1) {
      const c = text[at]!;
      if (c === '"') {
        at += 1;
        return value;
      }
      if (c === '\\') at += 1;
      if (at < text.length) value += text[at];
    }
    return null; // unterminated
  };
  /** `name [= word]`; undefined when malformed. */
  const pair = (): [string, string | null] | undefined => {
    const name = token();
    if (name === '') return undefined;
    skip(OWS);
    if (text[at] !== '=') return [name.toLowerCase(), null];
    at += 1;
    skip(OWS);
    const value = word();
    return value === null ? undefined : [name.toLowerCase(), value];
  };
  /** Moves past the rest of a malformed element, to its comma (quoted commas are not one). */
  const skipElement = () => {
    while (at < text.length && text[at] !== ',') {
      if (text[at] === '"') word();
      else at += 1;
    }
  };

  while (at < text.length) {
    skip(/[ \t,]/);
    if (at >= text.length) break;
    const head = pair();
    const params = new Map<string, string | null>();
    let ok = head !== undefined;
    while (ok) {
      skip(OWS);
      if (text[at] !== ';') break;
      at += 1;
      skip(OWS);
      if (at >= text.length || text[at] === ',' || text[at] === ';') continue; // an empty parameter
      const param = pair();
      if (param === undefined) ok = false;
      else if (!params.has(param[0])) params.set(param[0], param[1]);
    }
    if (ok && at < text.length && text[at] !== ',') ok = false;
    if (!ok || head === undefined) {
      skipElement();
      continue;
    }
    if (!prefs.has(head[0])) prefs.set(head[0], { value: head[1], params });
  }
  return prefs;
}
