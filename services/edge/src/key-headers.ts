// Removing the credential before a toolkit sees the request (spec: all three key headers are
// stripped), from every view Node offers of the headers: `headers`, `headersDistinct` and
// `rawHeaders` (which a proxying handler might copy).
import type { IncomingMessage } from 'node:http';
import { PUBLIC_KEY_HEADERS, stripKeyHeaders } from '@lattice/keys';

const KEY_HEADER_NAMES: ReadonlySet<string> = new Set(PUBLIC_KEY_HEADERS);

function isKeyHeader(name: string): boolean {
  return KEY_HEADER_NAMES.has(name.toLowerCase());
}

export function stripKeyHeadersFrom(req: IncomingMessage): void {
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
  const { headers, headersDistinct } = req;
  stripKeyHeaders(headers);
  stripKeyHeaders(headersDistinct);
  let kept = first;
  for (let i = first; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (isKeyHeader(name)) continue;
    raw[kept++] = name;
    raw[kept++] = raw[i + 1]!;
  }
  raw.length = kept;
}
