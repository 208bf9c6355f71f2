// Payloads over the inline cap are stored and delivered as a `ref` (spec: Payload reference).
// A store is per deployment (a local folder, or an S3-compatible bucket); whether a product may
// use one is decided by the registry, and an unprovisioned product's oversized publish is 503.

/** The `ref` object of history entries and fan-out messages. */
export interface PayloadRef {
  bucket_key: string;
  size: number;
  /** Present when known. */
  content_type?: string;
}

export interface StoredPayload {
  bytes: Buffer;
  contentType?: string;
}

export interface PayloadStore {
  /** Stores the bytes under a new key beneath the product's prefix. */
  put(productId: string, bytes: Uint8Array, contentType?: string): Promise<PayloadRef>;
  /** The stored bytes, or null when nothing is stored under the key. */
  get(bucketKey: string): Promise<StoredPayload | null>;
}

export interface PayloadStoreRegistry {
  /** The product's payload store, or null when none is provisioned (HTTP answers 503). */
  forProduct(productId: string): PayloadStore | null;
}

/** The inline rule: serialized `data` at or below this many bytes is delivered inline. */
export const INLINE_PAYLOAD_MAX_BYTES = 262_144;
