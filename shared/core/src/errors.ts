// One error vocabulary for the whole platform. HTTP layers map ApiError to the error body in one
// middleware; actors distinguish TerminalError (never retry) from RetryableError (retry later).

export interface FieldError {
  path: string;
  message: string;
}

export interface ErrorBody {
  error: { code: string; message: string; step?: string; fields?: FieldError[] };
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly step: string | undefined;
  readonly fields: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: string,
    step: string | undefined,
    message: string,
    opts: { fields?: FieldError[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.step = step;
    this.fields = opts.fields;
    this.headers = opts.headers ?? {};
  }

  toBody(): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message };
    if (this.step !== undefined) error.step = this.step;
    if (this.fields !== undefined) error.fields = this.fields;
    return { error };
  }
}

/** A failure that will fail the same way on every retry (bad record, invariant broken). */
export class TerminalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

/** A failure worth retrying (dependency down, timeout); `retryAfterMs` hints the delay. */
export class RetryableError extends Error {
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs = 1000, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RetryableError';
    this.retryAfterMs = retryAfterMs;
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
