// Processes we start outlive the Node process that started them (a test run, `lattice infra up`),
// so they are detached, log to files, and are later recognised by pid plus a marker in their
// command line: pids get reused, and we must never signal someone else's process.
import { spawn } from 'node:child_process';
import { closeSync, constants, existsSync, openSync } from 'node:fs';
import { access, mkdir, readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type Logger, sleep } from '@lattice/core';

export interface DetachedCommand {
  command: string;
  args: string[];
  cwd: string;
  /** stdout and stderr are appended here. */
  logFile: string;
  /** Drop root privileges (postgres refuses to run as root). */
  runAs?: { uid: number; gid: number };
}

/** Starts the command in its own session and returns its pid; the child is not waited for. */
export async function spawnDetached(cmd: DetachedCommand): Promise<number> {
  await mkdir(dirname(cmd.logFile), { recursive: true });
  const fd = openSync(cmd.logFile, 'a');
  try {
    const child = spawn(cmd.command, cmd.args, {
      cwd: cmd.cwd,
      detached: true,
      stdio: ['ignore', fd, fd],
      ...(cmd.runAs ?? {}),
    });
    // A failed exec is reported asynchronously; without a listener it would crash the caller.
    const failed = new Promise<Error>((resolve) => child.once('error', resolve));
    child.unref();
    const pid = child.pid;
    if (pid === undefined) throw await failed;
    return pid;
  } finally {
    closeSync(fd);
  }
}

const HAS_PROC = existsSync('/proc/self/stat');

/** Alive and not a zombie (a zombie still accepts signal 0). */
export async function isAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (!HAS_PROC) return true; // not Linux: signal 0 is the best we have
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false; // reaped between the signal and the read
  }
}

/** True when pid is alive and its command line contains marker. */
export async function processMatches(pid: number, marker: string): Promise<boolean> {
  if (!(await isAlive(pid))) return false;
  try {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.replaceAll('\0', ' ').includes(marker);
  } catch {
    return !HAS_PROC;
  }
}

/**
 * Sends `signal`, waits up to timeoutMs for the exit, then SIGKILLs the whole process group
 * (postgres backends, JVM helpers) so nothing lingers holding a port.
 */
export async function stopProcess(
  pid: number,
  opts: { signal: NodeJS.Signals; timeoutMs: number; logger: Logger; what: string },
): Promise<'stopped' | 'killed' | 'gone'> {
  const { signal, timeoutMs, logger, what } = opts;
  if (!(await isAlive(pid))) return 'gone';
  try {
    process.kill(pid, signal);
  } catch {
    return 'gone';
  }
  const deadlineMs = Date.now() + timeoutMs;
  let nextProgressMs = Date.now() + 5000;
  while (Date.now() < deadlineMs) {
    if (!(await isAlive(pid))) return 'stopped';
    if (Date.now() >= nextProgressMs) {
      logger.info({ pid }, `waiting for ${what} to stop`);
      nextProgressMs += 5000;
    }
    await sleep(100);
  }
  logger.warn({ pid, timeoutMs }, `${what} ignored ${signal}; killing it`);
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (let i = 0; i < 50 && (await isAlive(pid)); i++) await sleep(100);
  return 'killed';
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Debian keeps server binaries out of PATH, under /usr/lib/postgresql/<major>/bin. */
export async function postgresBinDirs(root = '/usr/lib/postgresql'): Promise<string[]> {
  try {
    const majors = (await readdir(root)).filter((d) => /^\d+(\.\d+)?$/.test(d));
    return majors.sort((a, b) => Number(b) - Number(a)).map((d) => join(root, d, 'bin'));
  } catch {
    return [];
  }
}

/** First executable called name in PATH, then in extraDirs. */
export async function findExecutable(
  name: string,
  pathVar: string | undefined,
  extraDirs: string[] = [],
): Promise<string | undefined> {
  const dirs = [...(pathVar ?? '').split(':').filter(Boolean), ...extraDirs];
  for (const dir of dirs) {
    const file = join(dir, name);
    if (await isExecutable(file)) return file;
  }
  return undefined;
}

/** Last lines of a log file, for error messages about a process that died on start. */
export async function tailOf(file: string, lines = 15): Promise<string> {
  try {
    const text = await readFile(file, 'utf8');
    return text.trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * For pollUntilReady: a reason to stop waiting once the process we started has exited, with
 * the end of its logs (the actual cause is almost always in there).
 */
export function exitedReason(
  proc: { pid: number; commandMarker: string; logFile: string },
  extraLogs: string[] = [],
): () => Promise<string | undefined> {
  return async () => {
    if (await processMatches(proc.pid, proc.commandMarker)) return undefined;
    const tails = await Promise.all(
      [...extraLogs, proc.logFile].map(async (f) => `--- ${f}\n${await tailOf(f)}`),
    );
    return `process ${proc.pid} exited\n${tails.join('\n')}`;
  };
}
