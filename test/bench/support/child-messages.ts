// Benchmarks drive their servers as child processes over IPC; this waits for the next message
// of one type, and fails when the child exits first.
import type { ChildProcess } from 'node:child_process';

export function nextMessage<M extends { type: string }, T extends M['type']>(
  child: ChildProcess,
  type: T,
  label: string,
): Promise<Extract<M, { type: T }>> {
  return new Promise((resolve, reject) => {
    // Both listeners go once either fires: a bench asks its servers many times.
    const onMessage = (m: M) => {
      if (m.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(m as Extract<M, { type: T }>);
    };
    const onExit = (code: number | null) => {
      child.off('message', onMessage);
      reject(new Error(`${label} exited with ${code}`));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}
