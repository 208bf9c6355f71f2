// A process's own log is written in batches (logger.ts): these check that nothing a process
// logged stays behind, and that lines land in the order they were logged, whether the process
// keeps running, exits or dies of an uncaught error.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const LOGGER = fileURLToPath(new URL('./logger.ts', import.meta.url));

/** A child that logs `lines` lines at info to stderr through createLogger, then does `then`. */
function child(lines: number, then: 'wait-for-stdin' | 'exit' | 'throw'): ChildProcess {
  const script = `
    const { createLogger } = await import(${JSON.stringify(LOGGER)});
    const log = createLogger({ name: 'process-log-test', level: 'info', destination: 'stderr' });
    for (let i = 1; i <= ${lines}; i++) log.info({ i, token: 'lmt_secret' }, 'line');
    const then = ${JSON.stringify(then)};
    if (then === 'exit') process.exit(0);
    if (then === 'throw') setImmediate(() => { throw new Error('boom'); });
    if (then === 'wait-for-stdin') { process.stdin.resume(); process.stdin.on('end', () => process.exit(0)); }
  `;
  return spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
}

function linesOf(text: string): Array<{ i?: number; token?: string }> {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

describe('a process log written in batches', () => {
  it('writes a line while the process keeps running, with nothing else to fill the batch', async () => {
    const p = child(1, 'wait-for-stdin');
    let stderr = '';
    // The line arrives while the child is still waiting for its stdin: only the periodic flush
    // can have written it (one line is far below the batch size).
    await new Promise<void>((resolve) => {
      p.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString('utf8');
        if (linesOf(stderr).length === 1) resolve();
      });
    });
    expect(p.exitCode).to.equal(null);
    p.stdin!.end();
    await once(p, 'exit');
    expect(linesOf(stderr)).to.deep.equal([linesOf(stderr)[0]]);
    expect(linesOf(stderr)[0]).to.include({ i: 1, token: '[redacted]' });
  });

  for (const then of ['exit', 'throw'] as const) {
    it(`writes every line logged before the process ${then === 'exit' ? 'exits' : 'dies of an uncaught error'}`, async () => {
      const p = child(500, then);
      let stderr = '';
      p.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString('utf8');
      });
      const [code] = await once(p, 'exit');
      expect(code).to.equal(then === 'exit' ? 0 : 1);
      expect(linesOf(stderr).map((l) => l.i)).to.deep.equal(Array.from({ length: 500 }, (_, k) => k + 1));
      if (then === 'throw') expect(stderr).to.include('boom');
    });
  }
});
