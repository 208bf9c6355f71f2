import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, sleep } from '@lattice/core';
import { expect } from 'chai';
import { findExecutable, isAlive, processMatches, spawnDetached, stopProcess } from './process.ts';

const logger = createLogger({ name: 'process-test', level: 'silent' });

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
    await sleep(100);
    expect(await processMatches(pid, 'sleep 30')).to.equal(true);
    expect(await processMatches(pid, 'kafka.Kafka')).to.equal(false);
    expect(await readFile(logFile, 'utf8')).to.contain('hello-from-child');
    expect(await stopProcess(pid, { signal: 'SIGTERM', timeoutMs: 2000, logger, what: 'sleep' })).to.equal(
      'stopped',
    );
    expect(await isAlive(pid)).to.equal(false);
  });

  it('kills a process that ignores the polite signal', async () => {
    const pid = await spawnDetached({
      command: 'sh',
      args: ['-c', 'trap "" TERM; sleep 30 & wait'],
      cwd: dir,
      logFile: join(dir, 'x.log'),
    });
    await sleep(100);
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
