// A Redis call bounded in time. ioredis gives a command up only after its reconnect attempts
// (seconds while Redis is down) and never while a connected server does not answer; request
// paths that must answer promptly race their call against a timer instead. The call itself is
// not cancelled: a late reply is ignored.
export const TIMED_OUT = Symbol('timed out');

export function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The call's answer, or a rejection naming `what` when it takes longer than `timeoutMs`. */
export async function boundedCall<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  const result = await withTimeout(promise, timeoutMs);
  if (result === TIMED_OUT) throw new Error(`${what}: Redis did not answer within ${timeoutMs} ms`);
  return result;
}
