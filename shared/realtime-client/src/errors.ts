// The one error type the client's promises reject with: the gateway's error frame codes, so that
// an app handles a refusal the same way whether the gateway or the client itself decided it.
import { type ErrorCode, isErrorCode } from '@lattice/realtime-protocol';

export class RealtimeError extends Error {
  override name = 'RealtimeError';
  readonly code: ErrorCode;
  /** True for the gateway's error frames; false for the client's own (timeouts, closed connections). */
  readonly fromGateway: boolean;

  constructor(code: ErrorCode, message: string, fromGateway = false) {
    super(message);
    this.code = code;
    this.fromGateway = fromGateway;
  }
}

/** The error of an error frame; an unknown code (a newer gateway) is taken as `unavailable`. */
export function errorOfFrame(error: unknown): RealtimeError {
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    message?: unknown;
  };
  const code = isErrorCode(e.code) ? e.code : 'unavailable';
  return new RealtimeError(code, typeof e.message === 'string' ? e.message : String(e.code ?? 'error'), true);
}

/** An Error for anything thrown (a token provider may reject with a string). */
export function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}
