// The `lattice` command run as a child process, as a user runs it: one-shot commands, and
// `lattice start [ROLE]` waited for until it says it is ready, stopped with SIGTERM.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { testConfig, writeToTestLog } from '@lattice/core/testing';

/** The `lattice` command's entry, for tools that spawn it themselves (an MCP stdio client). */
export const LATTICE_BIN = fileURLToPath(new URL('../../services/cli/bin/lattice.js', import.meta.url));
const BIN = LATTICE_BIN;
const config = testConfig();

export function lattice(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], {
    env: {
      ...process.env,
      DATABASE_URL: config.databaseUrl,
      // The suite's keyring: what a child seals in the test database, the others must open.
      LATTICE_SECRET_KEYS: config.secretKeys,
      LOG_LEVEL: 'warn',
      // Every answer of the platform under test is checked against the catalog (a 500 otherwise).
      MANAGEMENT_CHECK_ANSWERS: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export async function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = lattice(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, stdout, stderr };
}

/** Where freePort draws from: below the system's ephemeral range, above well-known services. */
const FREE_PORTS_FROM = 20_000;
const handedOut = new Set<number>();

/** The first port the system hands out for `listen(0)` and outgoing connections. */
function ephemeralRangeStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    return Number(low) > 0 ? Number(low) : 32_768;
  } catch {
    return 32_768;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port for a child process to listen on. A port the system picked for `listen(0)` and that
 * was closed again can be handed to any outgoing connection of this process (to Kafka, Redis,
 * PostgreSQL) before the child binds it. So the port comes from below the ephemeral range, where
 * the system never picks one on its own, is free when checked, and is never handed out twice in
 * one run.
 */
export async function freePort(): Promise<number> {
  const end = ephemeralRangeStart();
  const span = end - FREE_PORTS_FROM;
  if (span < 1000) throw new Error(`freePort: the ephemeral range starts at ${end}, too low for test ports`);
  for (let tries = 0; tries < 1000; tries++) {
    const port = FREE_PORTS_FROM + Math.floor(Math.random() * span);
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await canListen(port)) return port;
  }
  throw new Error(`freePort: no free port between ${FREE_PORTS_FROM} and ${end}`);
}

/** Starts `lattice start [args]`, resolves with its output once `ready` is printed. */
export async function startPlatform(
  env: Record<string, string>,
  args: string[] = [],
  ready = 'Ctrl-C stops Lattice.',
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = lattice(['start', ...args], env);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  // Its log lines go to the run's log file too, so a failed test's services can be read there.
  const role = args[0] ?? 'all';
  createInterface({ input: child.stdout! }).on('line', (line) => writeToTestLog(line));
  createInterface({ input: child.stderr! }).on('line', (line) =>
    writeToTestLog(`lattice start ${role} (pid ${child.pid}) stderr: ${line}`),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`lattice start did not come up:\n${out}`)), 90_000);
    const check = () => {
      if (out.includes(ready)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', () => reject(new Error(`lattice start exited:\n${out}`)));
  });
  return { child, output: () => out };
}

export async function stopPlatform(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  return exited;
}
