import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@lattice/core';
import { expect } from 'chai';
import { pollUntilReady } from './poll.ts';
import { findExecutable, isAlive, processMatches, spawnDetached, stopProcess } from './process.ts';

const logger = createLogger({ name: 'process-test', level: 'silent' });

/** Waits until the child has written `marker` to its log: it got that far (a busy machine may take a while). */
async function logged(logFile: string, marker: string): Promise<void> {
  const probe = async () => (await readFile(logFile, 'utf8').catch(() => '')).includes(marker);
  await pollUntilReady({ what: `${marker} in ${logFile}`, probe, timeoutMs: 10_000, logger, intervalMs: 20 });
}

describe('process', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lattice-process-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('starts detached, logs to a file, is recognised by its marker, stops on SIGTERM', async () => {
    const logFile = join(dir, 'out.log');
    const pid = await spawnDetached({
      command: 'sh',
      args: ['-c', 'echo hello-from-child; exec sleep 30'],
      cwd: dir,
      logFile,
    });
    expect(await isAlive(pid)).to.equal(true);
    await logged(logFile, 'hello-from-child');
    // The exec follows the echo at once; a moment for it, as the marker check reads its command line.
    await pollUntilReady({
      what: 'exec',
      probe: () => processMatches(pid, 'sleep 30'),
      timeoutMs: 10_000,
      logger,
      intervalMs: 20,
    });
    expect(await processMatches(pid, 'kafka.Kafka')).to.equal(false);
    expect(await stopProcess(pid, { signal: 'SIGTERM', timeoutMs: 2000, logger, what: 'sleep' })).to.equal(
      'stopped',
    );
    expect(await isAlive(pid)).to.equal(false);
  });

  it('kills a process that ignores the polite signal', async () => {
    const logFile = join(dir, 'x.log');
    const pid = await spawnDetached({
      command: 'sh',
      args: ['-c', 'trap "" TERM; echo trapped; sleep 30 & wait'],
      cwd: dir,
      logFile,
    });
    await logged(logFile, 'trapped');
    expect(await stopProcess(pid, { signal: 'SIGTERM', timeoutMs: 200, logger, what: 'stubborn' })).to.equal(
      'killed',
    );
    expect(await isAlive(pid)).to.equal(false);
  });

  it('reports a missing command as an error, not a crash', async () => {
    const err = await spawnDetached({
      command: 'no-such-command-lattice',
      args: [],
      cwd: dir,
      logFile: join(dir, 'y.log'),
    }).catch((e: Error) => e);
    expect(String(err)).to.match(/ENOENT/);
  });

  it('finds executables in the given search path', async () => {
    expect(await findExecutable('sh', '/nonexistent:/bin:/usr/bin')).to.match(/\/sh$/);
    expect(await findExecutable('no-such-command-lattice', '/bin')).to.equal(undefined);
  });
});
