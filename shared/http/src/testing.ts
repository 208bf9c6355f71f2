// Test support (`@lattice/http/testing`), never imported by production code: listen on an
// ephemeral port, and send byte-exact requests that fetch refuses to produce.
export type { Listening } from './testing/listen.ts';
export { listen } from './testing/listen.ts';
export type { RawResponse } from './testing/raw-http.ts';
export { parseRawResponse, rawHttp } from './testing/raw-http.ts';
