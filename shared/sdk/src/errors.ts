// The SDK's two error classes (shared/sdk/README.md): every refusal of the API,
// and every request that got no usable answer, is a LatticeError; a webhook that does not verify
// is a WebhookVerificationError.

/** One refused field of a `400 validation_error`: `body.name`, `query.limit`, … */
export interface FieldError {
  path: string;
  message: string;
}

export interface LatticeErrorInit {
  status: number;
  code: string;
  message: string;
  step: string;
  fields?: readonly FieldError[];
  requestId?: string | null;
  cause?: unknown;
}

/**
 * An answer of 400 or more from Lattice, with the error body's `code`, `message`, `step` and
 * `fields` and the answer's `X-Request-Id`. `status` is 0 when no answer came (`code`
 * `connection_failed` or `timeout`, step `transport`, the underlying error as `cause`).
 */
export class LatticeError extends Error {
  override readonly name = 'LatticeError';
  readonly status: number;
  readonly code: string;
  readonly step: string;
  /** The refused fields of a validation error; empty otherwise. */
  readonly fields: readonly FieldError[];
  /** The answer's `X-Request-Id` (what Lattice's logs name the request by); null without an answer. */
  readonly requestId: string | null;

  constructor(init: LatticeErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.step = init.step;
    this.fields = init.fields ?? [];
    this.requestId = init.requestId ?? null;
  }
}

/** A webhook delivery that is not Lattice's: bad or missing headers, no matching signature, a stale timestamp. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** The LatticeError of an error answer: its JSON error body when it has one, else the status line. */
export function errorFromAnswer(
  status: number,
  statusText: string,
  text: string,
  headers: Headers,
): LatticeError {
  const requestId = headers.get('x-request-id');
  const error = errorBodyOf(text);
  if (error) return new LatticeError({ status, ...error, requestId });
  const excerpt = text.trim().slice(0, 200);
  return new LatticeError({
    status,
    code: 'unexpected_response',
    step: 'response',
    message: `HTTP ${status}${statusText ? ` ${statusText}` : ''}${excerpt ? `: ${excerpt}` : ''}`,
    requestId,
  });
}

function errorBodyOf(text: string): Omit<LatticeErrorInit, 'status'> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const error = (parsed as { error?: unknown } | null)?.error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message, step, fields } = error as Record<string, unknown>;
  if (typeof code !== 'string') return undefined;
  return {
    code,
    message: typeof message === 'string' ? message : code,
    step: typeof step === 'string' ? step : 'unknown',
    fields: Array.isArray(fields)
      ? fields
          .filter((f): f is Record<string, unknown> => typeof f === 'object' && f !== null)
          .map((f) => ({ path: String(f.path ?? ''), message: String(f.message ?? '') }))
      : [],
  };
}
