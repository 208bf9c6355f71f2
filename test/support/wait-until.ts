// Polls a condition of a running system until it holds, for the integration tests that watch
// processes, brokers and receivers they cannot drive by a scheduler.
import { sleep } from '@lattice/core';

export async function waitUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  pollMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(pollMs);
  }
}
