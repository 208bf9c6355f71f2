// PayloadStore on any S3-compatible object store (AWS S3, MinIO, R2, Ceph): PUT and GET Object
// with path-style URLs (`<endpoint>/<bucket>/<key>`), signed with SigV4 (sigv4.ts).
import { type Clock, systemClock } from '@lattice/core';
import { isPayloadKey, newPayloadKey } from './payload-key.ts';
import type { PayloadStore } from './payload-store.ts';
import { EMPTY_PAYLOAD_SHA256, type SigV4Credentials, sha256Hex, signV4, uriEncode } from './sigv4.ts';

export interface S3PayloadStoreOptions {
  /** e.g. `https://s3.eu-west-1.amazonaws.com` or `http://127.0.0.1:9000`. */
  endpoint: string;
  bucket: string;
  region: string;
  credentials: SigV4Credentials;
  /** Prepended to every object key (e.g. `lattice/`). */
  keyPrefix?: string;
  timeoutMs?: number;
  clock?: Clock;
  fetch?: typeof fetch;
}

export class PayloadStoreError extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.name = 'PayloadStoreError';
    this.status = status;
  }
}

export function createS3PayloadStore(opts: S3PayloadStoreOptions): PayloadStore {
  const clock = opts.clock ?? systemClock;
  const doFetch = opts.fetch ?? fetch;
  const prefix = opts.keyPrefix ?? '';
  const base = opts.endpoint.replace(/\/+$/, '');
  const objectUrl = (key: string) => new URL(`${base}/${uriEncode(opts.bucket)}/${uriEncode(key, false)}`);

  async function send(method: 'GET' | 'PUT', key: string, body?: Uint8Array, contentType?: string) {
    const url = objectUrl(key);
    const payloadHash = body ? sha256Hex(body) : EMPTY_PAYLOAD_SHA256;
    const headers: Record<string, string> = { 'x-amz-content-sha256': payloadHash };
    if (contentType !== undefined) headers['content-type'] = contentType;
    const signed = signV4(
      { method, url, headers, payloadHash },
      { credentials: opts.credentials, region: opts.region, service: 's3', date: new Date(clock.nowMs()) },
    );
    // host is set by fetch from the URL; sending it explicitly is refused.
    const { host: _host, ...sendHeaders } = signed.headers;
    return doFetch(url, {
      method,
      headers: sendHeaders,
      ...(body ? { body } : {}),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
    });
  }

  async function failure(res: Response, what: string): Promise<PayloadStoreError> {
    const text = (await res.text().catch(() => '')).slice(0, 300);
    return new PayloadStoreError(`${what} failed with HTTP ${res.status}: ${text}`, res.status);
  }

  return {
    async put(productId, bytes, contentType) {
      const key = `${prefix}${newPayloadKey(productId, clock.nowMs())}`;
      const res = await send('PUT', key, bytes, contentType);
      if (!res.ok) throw await failure(res, `PUT ${key}`);
      await res.arrayBuffer();
      return contentType === undefined
        ? { bucket_key: key, size: bytes.byteLength }
        : { bucket_key: key, size: bytes.byteLength, content_type: contentType };
    },
    async get(bucketKey) {
      if (!bucketKey.startsWith(prefix) || !isPayloadKey(bucketKey.slice(prefix.length))) return null;
      const res = await send('GET', bucketKey);
      if (res.status === 404) {
        await res.arrayBuffer();
        return null;
      }
      if (!res.ok) throw await failure(res, `GET ${bucketKey}`);
      const bytes = Buffer.from(await res.arrayBuffer());
      const contentType = res.headers.get('content-type');
      return contentType === null ? { bytes } : { bytes, contentType };
    },
  };
}
