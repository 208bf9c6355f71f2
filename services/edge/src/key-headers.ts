// Removing the credential before a toolkit sees the request (spec: all three key headers are
// stripped), from every view Node offers of the headers: `headers`, `headersDistinct` and
// `rawHeaders` (which a proxying handler might copy).
import type { IncomingMessage } from 'node:http';
import { PUBLIC_KEY_HEADERS } from '@lattice/keys';

const KEY_HEADER_NAMES: ReadonlySet<string> = new Set(PUBLIC_KEY_HEADERS);
const KEY_HEADER_LENGTHS: ReadonlySet<number> = new Set(PUBLIC_KEY_HEADERS.map((name) => name.length));

function isKeyHeader(name: string): boolean {
  // The length rules out most names without building a lower-case copy.
  return KEY_HEADER_LENGTHS.has(name.length) && KEY_HEADER_NAMES.has(name.toLowerCase());
}

/** Deletes only what is there: each delete turns the object into a slower dictionary. */
function deleteKeyHeaders(headers: Record<string, unknown>): void {
  for (const name of PUBLIC_KEY_HEADERS) if (headers[name] !== undefined) delete headers[name];
}

export function stripKeyHeadersFrom(req: IncomingMessage): void {
  // `headers` holds every header of rawHeaders under its lower-case name (the edge has read it
  // already, so it is built): none of the three there means none in rawHeaders, nothing to scan.
  const { headers } = req;
  if (
    headers.authorization === undefined &&
    headers['x-public-key'] === undefined &&
    headers['x-api-key'] === undefined
  ) {
    return;
  }
  const raw = req.rawHeaders;
  let first = -1;
  for (let i = 0; i < raw.length; i += 2) {
    if (isKeyHeader(raw[i]!)) {
      first = i;
      break;
    }
  }
  if (first < 0) return;
  // Node builds `headers` and `headersDistinct` lazily from rawHeaders and the header count its
  // parser saw; both are materialised before rawHeaders shrinks, so neither is later rebuilt
  // from an array shorter than that count (which throws) or from the unstripped original.
  const { headersDistinct } = req;
  deleteKeyHeaders(headers);
  deleteKeyHeaders(headersDistinct);
  let kept = first;
  for (let i = first; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (isKeyHeader(name)) continue;
    raw[kept++] = name;
    raw[kept++] = raw[i + 1]!;
  }
  raw.length = kept;
}
