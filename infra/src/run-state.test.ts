import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, sleep } from '@lattice/core';
import { expect } from 'chai';
import {
  EMPTY_RUN_STATE,
  findService,
  type ManagedService,
  parseRunState,
  RunStateStore,
  readRunState,
  serializeRunState,
  withoutService,
  withRunLock,
  withService,
} from './run-state.ts';

const logger = createLogger({ name: 'run-state-test', level: 'silent' });

function service(name: ManagedService['name'], pid: number): ManagedService {
  return {
    name,
    pid,
    commandMarker: `/cache/${name}`,
    address: '127.0.0.1:1',
    stopSignal: 'SIGTERM',
    startedAt: '2026-01-01T00:00:00.000Z',
    logFile: `/cache/${name}.log`,
  };
}

describe('run-state', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lattice-run-state-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('records one entry per service, replacing an older one', () => {
    const state = withService(
      withService(withService(EMPTY_RUN_STATE, service('kafka', 10)), service('redis', 11)),
      service('kafka', 12),
    );
    expect(state.services.map((s) => [s.name, s.pid])).to.deep.equal([
      ['redis', 11],
      ['kafka', 12],
    ]);
    expect(findService(state, 'kafka')?.pid).to.equal(12);
    expect(findService(withoutService(state, 'kafka'), 'kafka')).to.equal(undefined);
    expect(EMPTY_RUN_STATE.services).to.have.length(0); // never mutated
  });

  it('keeps one entry per broker of a cluster, apart from a single broker', () => {
    const node = (n: number, pid: number): ManagedService => ({ ...service('kafka', pid), node: n });
    let state = withService(EMPTY_RUN_STATE, service('kafka', 10));
    state = withService(withService(withService(state, node(1, 21)), node(2, 22)), node(1, 23));
    expect(state.services.map((s) => [s.node ?? null, s.pid])).to.deep.equal([
      [null, 10],
      [2, 22],
      [1, 23],
    ]);
    expect(findService(state, 'kafka')?.pid).to.equal(10);
    expect(findService(state, 'kafka', 2)?.pid).to.equal(22);
    expect(withoutService(state, 'kafka', 2).services.map((s) => s.pid)).to.deep.equal([10, 23]);
    expect(parseRunState(serializeRunState(state))).to.deep.equal(state);
    expect(() =>
      parseRunState(JSON.stringify({ version: 1, services: [{ ...service('kafka', 1), node: 0 }] })),
    ).to.throw();
  });

  it('round-trips through its file format and rejects anything else', () => {
    const state = withService(EMPTY_RUN_STATE, service('postgres', 42));
    expect(parseRunState(serializeRunState(state))).to.deep.equal(state);
    expect(() => parseRunState('{"version":2,"services":[]}')).to.throw();
    expect(() => parseRunState('{"version":1,"services":[{"name":"mysql","pid":1}]}')).to.throw();
    expect(() => parseRunState('not json')).to.throw();
  });

  it('reads a missing or corrupt file as empty', async () => {
    const file = join(dir, 'state.json');
    expect(await readRunState(file, logger)).to.deep.equal(EMPTY_RUN_STATE);
    await writeFile(file, '{"half":');
    expect(await readRunState(file, logger)).to.deep.equal(EMPTY_RUN_STATE);
  });

  it('applies concurrent updates in order without losing any', async () => {
    const file = join(dir, 'state.json');
    const store = new RunStateStore(file, logger);
    await Promise.all([
      store.update((s) => withService(s, service('kafka', 1))),
      store.update((s) => withService(s, service('redis', 2))),
      store.update((s) => withService(s, service('postgres', 3))),
      store.update((s) => withoutService(s, 'redis')),
    ]);
    const names = (await store.read()).services.map((s) => s.name);
    expect(names).to.deep.equal(['kafka', 'postgres']);
    expect(await readFile(file, 'utf8')).to.match(/\n$/);
  });

  it('lets one holder at a time into the lock', async () => {
    const lockDir = join(dir, 'run', 'lock');
    const events: string[] = [];
    const holder = (name: string) =>
      withRunLock(lockDir, logger, async () => {
        events.push(`${name} in`);
        await sleep(50);
        events.push(`${name} out`);
      });
    await Promise.all([holder('a'), holder('b')]);
    // Either may come first (a loaded machine decides); never both inside at once.
    const [first, second] = events[0] === 'a in' ? ['a', 'b'] : ['b', 'a'];
    expect(events).to.deep.equal([`${first} in`, `${first} out`, `${second} in`, `${second} out`]);
  });

  it('takes over a lock whose owner died', async () => {
    // What a crash mid-ensureInfra leaves behind: the lock directory with a dead owner's pid.
    const lockDir = join(dir, 'lock');
    await mkdir(lockDir, { recursive: true });
    await writeFile(join(lockDir, 'owner'), '999999999');
    expect(await withRunLock(lockDir, logger, async () => 'got it', 2000)).to.equal('got it');
  });
});
