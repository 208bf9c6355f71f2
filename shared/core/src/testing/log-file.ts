// One log file for everything a test run logs: services started inside the test process write
// to it instead of stdout, and what child processes print is copied into it, so the terminal
// shows only the test reporter while the logs stay one file away when a test fails.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { destination } from 'pino';
import { createLogger, defaultLogDestination, type Logger, setDefaultLogDestination } from '../logger.ts';

let notes: Logger | null = null;

/**
 * From now on every logger of this process without a destination stream of its own appends to
 * `path`. Written synchronously: mocha ends the process right after the run, before any
 * buffered write would reach the file.
 */
export function logToFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  setDefaultLogDestination(destination({ dest: path, sync: true }));
  notes = null;
}

/**
 * Appends what a child process printed (its log lines, its stderr) to the log file, or passes
 * it to stderr when logs are not sent to a file, so it is never lost nor mixed into the reporter.
 */
export function writeToTestLog(text: string): void {
  const chunk = text.endsWith('\n') ? text : `${text}\n`;
  const file = defaultLogDestination();
  if (file) file.write(chunk);
  else process.stderr.write(chunk);
}

/** A measurement a test keeps for people (durations, counts): one info line in the log. */
export function noteInTestLog(message: string, fields: Record<string, unknown> = {}): void {
  notes ??= createLogger({ name: 'test-note', level: 'info' });
  notes.info(fields, message);
}
