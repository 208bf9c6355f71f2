// Where a benchmark's Lattice processes log, and at what level. Each Lattice process runs at the
// level it has in production: LOG_LEVEL's default, `info`, at which the edge and the management
// API write one line per request (README, Configuration). `lattice start` writes its lines to
// stderr in batches (processLogDestination); a benchmark's child writes them the same way to
// a file of its own, so the terminal stays readable and the parent can count what was written:
// the reports give the log bytes per request or message. BENCH_LOG_LEVEL sets another level for a
// run, which the report then names as a difference from production; BENCH_KEEP_LOGS=1 keeps what
// was logged (`<name>.all.log` beside the files, the folder left in place) to be read.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createLogger,
  type LatticeConfig,
  type Logger,
  loadConfig,
  processLogDestination,
} from '@lattice/core';

export type LogLevel = LatticeConfig['logLevel'];

/** The level a Lattice process runs at when LOG_LEVEL is not set: the configuration's default. */
export const PRODUCTION_LOG_LEVEL: LogLevel = loadConfig({}).logLevel;

/** BENCH_LOG_LEVEL when set (checked as LOG_LEVEL is), else the production level. */
export function benchLogLevel(env: NodeJS.ProcessEnv): LogLevel {
  return env.BENCH_LOG_LEVEL ? loadConfig({ LOG_LEVEL: env.BENCH_LOG_LEVEL }).logLevel : PRODUCTION_LOG_LEVEL;
}

/** A child's logger: `level`, written to `file` as `lattice start` writes to stderr. */
export function fileLogger(name: string, level: LogLevel, file: string): Logger {
  return createLogger({ name, level, destination: processLogDestination(file) });
}

/** The parent's side: one log file per child, counted and emptied between measurements. */
export interface LogFiles {
  readonly dir: string;
  /** The file child `name` logs to. */
  pathOf(name: string): string;
  /** Bytes `name` logged since the last take; the file is emptied (its writer appends). */
  take(name: string): number;
  /** Removes the files (kept when a run failed, to be read). */
  remove(): void;
}

export function createLogFiles(bench: string, keep = process.env.BENCH_KEEP_LOGS === '1'): LogFiles {
  const dir = mkdtempSync(join(tmpdir(), `lattice-bench-${bench}-logs-`));
  const pathOf = (name: string) => join(dir, `${name}.log`);
  return {
    dir,
    pathOf,
    take(name) {
      let bytes = 0;
      try {
        bytes = statSync(pathOf(name)).size;
        if (keep) appendFileSync(join(dir, `${name}.all.log`), readFileSync(pathOf(name)));
        truncateSync(pathOf(name), 0);
      } catch {
        // Nothing logged yet: no file.
      }
      return bytes;
    },
    remove: () => {
      if (!keep) rmSync(dir, { recursive: true, force: true });
    },
  };
}
