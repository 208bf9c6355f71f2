// Form bodies, for the routes that take one instead of JSON: RFC 8058's one-click unsubscribe,
// which mail providers post as `List-Unsubscribe=One-Click` in either form encoding (the RFC
// prefers multipart/form-data, most send application/x-www-form-urlencoded). The body has been
// read within the route's cap before this runs, so parsing is over a bounded buffer, by index
// scans (no backtracking). Fields become an object of strings, the first of repeated names
// winning; file parts are not fields and are skipped.
import { HTTP_ERRORS } from './http-errors.ts';

export const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'];

export type FormFields = Record<string, string>;

interface MediaType {
  type: string;
  params: Map<string, string>;
}

/** `multipart/form-data; boundary="x"` → its type and parameters (names lower-cased). */
function mediaTypeOf(value: string): MediaType {
  const [type = '', ...rest] = value.split(';');
  const params = new Map<string, string>();
  for (const param of rest) {
    const eq = param.indexOf('=');
    if (eq < 0) continue;
    let v = param.slice(eq + 1).trim();
    if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
    params.set(param.slice(0, eq).trim().toLowerCase(), v);
  }
  return { type: type.trim().toLowerCase(), params };
}

function firstWins(entries: Iterable<[string, string]>): FormFields {
  const seen = new Map<string, string>();
  for (const [name, value] of entries) if (!seen.has(name)) seen.set(name, value);
  // fromEntries defines own properties: a field named `__proto__` is a field, not a prototype.
  return Object.fromEntries(seen);
}

/** The fields of a form body; throws 400 `invalid_form` for a malformed multipart body. */
export function parseFormBody(contentType: string, body: Buffer): FormFields {
  const media = mediaTypeOf(contentType);
  if (media.type === 'multipart/form-data') return parseMultipart(media, body);
  return firstWins(new URLSearchParams(body.toString('utf8')));
}

const DISPOSITION = /^content-disposition:/i;

function parseMultipart(media: MediaType, body: Buffer): FormFields {
  const boundary = media.params.get('boundary');
  // RFC 2046: 1 to 70 characters.
  if (!boundary || boundary.length > 70) throw HTTP_ERRORS.invalidForm();
  // latin1 maps bytes to characters one to one: indexes are byte offsets, values are re-decoded.
  const text = body.toString('latin1');
  const delimiter = `\r\n--${boundary}`;
  // The first delimiter may open the body without the CRLF that precedes every other one.
  let at = text.startsWith(delimiter.slice(2)) ? -2 : text.indexOf(delimiter);
  if (at === -1) throw HTTP_ERRORS.invalidForm();
  const fields: Array<[string, string]> = [];
  for (;;) {
    const afterDelimiter = at + delimiter.length;
    if (text.startsWith('--', afterDelimiter)) return firstWins(fields); // the close delimiter
    const lineEnd = text.indexOf('\r\n', afterDelimiter);
    if (lineEnd < 0) throw HTTP_ERRORS.invalidForm();
    const partStart = lineEnd + 2;
    // Searched from the CRLF that ends the delimiter line: a part with no headers and no
    // content (`\r\n` alone) is found too; a delimiter right after a delimiter is no part.
    const next = text.indexOf(delimiter, lineEnd);
    if (next < partStart) throw HTTP_ERRORS.invalidForm();
    const field = fieldOf(text.slice(partStart, next));
    if (field) fields.push(field);
    at = next;
  }
}

/** A part's field, or null for a part that is a file or names no field. */
function fieldOf(part: string): [string, string] | null {
  if (part === '') return null; // RFC 2046 allows a part with neither headers nor content
  const headersEnd = part.startsWith('\r\n') ? 0 : part.indexOf('\r\n\r\n');
  if (headersEnd < 0) throw HTTP_ERRORS.invalidForm();
  const headers = part.slice(0, headersEnd).split('\r\n');
  const disposition = headers.find((h) => DISPOSITION.test(h));
  if (!disposition) return null;
  const { type, params } = mediaTypeOf(disposition.slice(disposition.indexOf(':') + 1));
  const name = params.get('name');
  if (type !== 'form-data' || name === undefined || params.has('filename')) return null;
  const value = part.slice(headersEnd + (headersEnd === 0 ? 2 : 4));
  return [Buffer.from(name, 'latin1').toString('utf8'), Buffer.from(value, 'latin1').toString('utf8')];
}
