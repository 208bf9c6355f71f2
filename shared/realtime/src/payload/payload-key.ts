// Object keys of stored payloads: `<product_id>/<yyyy-mm-dd>/<uuid>`. The date segment lets an
// operator expire old payloads by prefix; the product segment keeps products apart.
import { randomUUID } from 'node:crypto';

const PRODUCT_RE = /^[A-Za-z0-9_-]{1,64}$/;
const KEY_RE =
  /^[A-Za-z0-9_-]{1,64}\/\d{4}-\d{2}-\d{2}\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function newPayloadKey(productId: string, nowMs: number): string {
  if (!PRODUCT_RE.test(productId)) throw new TypeError(`not a product id: ${JSON.stringify(productId)}`);
  return `${productId}/${new Date(nowMs).toISOString().slice(0, 10)}/${randomUUID()}`;
}

/** True for keys this module makes (after an optional store prefix): nothing else is fetched. */
export function isPayloadKey(key: string): boolean {
  return KEY_RE.test(key);
}
