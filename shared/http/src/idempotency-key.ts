// The Idempotency-Key request header (draft-ietf-httpapi-idempotency-key-header), as both
// toolkits accept it: what the realtime publish and the mail send refuse with a 400 naming it.
export const IDEMPOTENCY_KEY_MAX = 255;

/** Why an Idempotency-Key header value is unusable, or null. */
export function idempotencyKeyProblem(value: string): string | null {
  if (value.length < 1 || value.length > IDEMPOTENCY_KEY_MAX)
    return `must be 1 to ${IDEMPOTENCY_KEY_MAX} characters`;
  if (!/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value))
    return 'may contain only printable ASCII characters';
  return null;
}
