// What ensureInfra started, so stopInfra stops exactly that and nothing that was already
// running. One JSON file under infra/.cache/run, changed only while holding the run lock.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type Logger, sleep } from '@lattice/core';
import { isAlive } from './process.ts';

export type ServiceName = 'kafka' | 'postgres' | 'redis';
export const SERVICE_NAMES: readonly ServiceName[] = ['kafka', 'postgres', 'redis'];

export interface ManagedService {
  name: ServiceName;
  /** Node id of one broker of a local Kafka cluster; absent for a single server. */
  node?: number;
  pid: number;
  /** Found in /proc/<pid>/cmdline while the pid is still ours. */
  commandMarker: string;
  address: string;
  /** postgres wants SIGINT ("fast" shutdown); SIGTERM would wait for every client to leave. */
  stopSignal: 'SIGTERM' | 'SIGINT';
  startedAt: string;
  logFile: string;
}

export interface RunState {
  version: 1;
  services: ManagedService[];
}

export const EMPTY_RUN_STATE: RunState = { version: 1, services: [] };

/** The entry of `name` (and of `node`, for a broker of a cluster; none: the single server). */
function isEntry(s: ManagedService, name: ServiceName, node: number | undefined): boolean {
  return s.name === name && s.node === node;
}

/** Records a service, replacing an older entry of the same name and node. */
export function withService(state: RunState, service: ManagedService): RunState {
  return {
    ...state,
    services: [...state.services.filter((s) => !isEntry(s, service.name, service.node)), service],
  };
}

export function withoutService(state: RunState, name: ServiceName, node?: number): RunState {
  return { ...state, services: state.services.filter((s) => !isEntry(s, name, node)) };
}

export function findService(state: RunState, name: ServiceName, node?: number): ManagedService | undefined {
  return state.services.find((s) => isEntry(s, name, node));
}

function isManagedService(v: unknown): v is ManagedService {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Record<string, unknown>;
  return (
    SERVICE_NAMES.includes(s.name as ServiceName) &&
    (s.node === undefined || (Number.isInteger(s.node) && (s.node as number) > 0)) &&
    Number.isInteger(s.pid) &&
    (s.pid as number) > 0 &&
    typeof s.commandMarker === 'string' &&
    typeof s.address === 'string' &&
    (s.stopSignal === 'SIGTERM' || s.stopSignal === 'SIGINT') &&
    typeof s.startedAt === 'string' &&
    typeof s.logFile === 'string'
  );
}

/** Throws on anything that is not a state file we wrote. */
export function parseRunState(text: string): RunState {
  const v = JSON.parse(text) as { version?: unknown; services?: unknown };
  if (v?.version !== 1 || !Array.isArray(v.services) || !v.services.every(isManagedService)) {
    throw new Error('not a version 1 run state');
  }
  return { version: 1, services: v.services };
}

export function serializeRunState(state: RunState): string {
  return `${JSON.stringify(state, null, 2)}\n`;
}

export async function readRunState(file: string, logger: Logger): Promise<RunState> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return EMPTY_RUN_STATE;
    throw err;
  }
  try {
    return parseRunState(text);
  } catch (err) {
    // Losing track is better than refusing to start; the processes can still be found by port.
    logger.warn({ file, err: (err as Error).message }, 'ignoring unreadable infra run state');
    return EMPTY_RUN_STATE;
  }
}

/** Write-then-rename, so a reader never sees half a file. */
export async function writeRunState(file: string, state: RunState): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, serializeRunState(state));
  await rename(tmp, file);
}

/**
 * Runs fn while holding a cross-process lock (an atomically created directory holding the
 * owner's pid), so two `ensureInfra` calls (a test run and `lattice infra up`) never both start
 * a broker. A lock whose owner died is taken over.
 */
export async function withRunLock<T>(
  lockDir: string,
  logger: Logger,
  fn: () => Promise<T>,
  timeoutMs = 10 * 60_000,
): Promise<T> {
  await mkdir(dirname(lockDir), { recursive: true });
  const ownerFile = join(lockDir, 'owner');
  const startedMs = Date.now();
  let nextProgressMs = startedMs + 5000;
  for (;;) {
    try {
      await mkdir(lockDir);
      await writeFile(ownerFile, String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = Number(await readFile(ownerFile, 'utf8').catch(() => ''));
    // No owner yet may mean "being created right now": only a dead owner is stale.
    if (owner > 0 && owner !== process.pid && !(await isAlive(owner))) {
      logger.warn({ owner }, 'taking over infra lock of a dead process');
      await rm(lockDir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() - startedMs > timeoutMs)
      throw new Error(`infra lock ${lockDir} still held by pid ${owner}`);
    if (Date.now() >= nextProgressMs) {
      logger.info({ owner }, 'waiting for another process that is starting infrastructure');
      nextProgressMs += 5000;
    }
    await sleep(200);
  }
  try {
    return await fn();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}

/**
 * The run state as seen by one lock holder. Services may be ensured concurrently inside one
 * ensureInfra call, so updates are chained to keep read-modify-write sequential.
 */
export class RunStateStore {
  private readonly file: string;
  private readonly logger: Logger;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(file: string, logger: Logger) {
    this.file = file;
    this.logger = logger;
  }

  read(): Promise<RunState> {
    return readRunState(this.file, this.logger);
  }

  update(change: (state: RunState) => RunState): Promise<void> {
    const next = this.chain.then(async () => writeRunState(this.file, change(await this.read())));
    this.chain = next.catch(() => undefined);
    return next;
  }
}
