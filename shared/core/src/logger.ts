// Structured JSON logs (pino). Credentials never reach a log line: known secret-bearing paths
// are censored at the source, in every line's fields and every child logger's bindings
// (log-redaction.ts says how, and why not pino's own `redact`).
import {
  type DestinationStream,
  destination,
  type LoggerOptions,
  type Logger as PinoLogger,
  pino,
} from 'pino';
import { createRedactor } from './log-redaction.ts';

export type Logger = PinoLogger;
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

const REDACT = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  'req.headers["x-public-key"]',
  'req.headers["x-api-key"]',
  'token',
  'secret',
  'apiKey',
  '*.apiKey',
  '*.token',
  '*.secret',
  '*.owner_token',
];

const redact = createRedactor(REDACT, '[redacted]');

/**
 * How a process's own log (stdout or stderr) is written: lines gather in memory and go out
 * together, in one synchronous write, once 4 KiB are waiting or 100 ms have passed: one write for
 * many lines instead of one per line. What is waiting is written when the process exits, also
 * on an uncaught error. Synchronous, so lines land in the order they were logged (an asynchronous
 * write still in flight at exit would land after the rest). A process killed outright (SIGKILL)
 * loses at most its last 100 ms of lines (docs/operations.md "Tracing a request").
 */
const BUFFERED = { sync: true, minLength: 4096, periodicFlush: 100 } as const;

const flushedAtExit = new Set<{ flushSync(): void }>();

function flushAllAtExit(): void {
  for (const stream of flushedAtExit) {
    try {
      stream.flushSync();
    } catch {
      // A closed stderr at exit: nothing more can be written anywhere.
    }
  }
}

/** A process log's destination as `lattice start` writes it: `target` a file descriptor or a file path. */
export function processLogDestination(target: 1 | 2 | string): DestinationStream {
  const stream =
    typeof target === 'number'
      ? destination({ fd: target, ...BUFFERED })
      : destination({ dest: target, append: true, ...BUFFERED });
  if (flushedAtExit.size === 0) process.once('exit', flushAllAtExit);
  flushedAtExit.add(stream);
  return stream;
}

// Where loggers without a destination stream of their own write (unset: stdout in batches,
// or stderr when asked). A composition root may change it before it creates loggers; the test
// suite sends every service log to a file so the terminal shows only the test reporter. Kept on
// globalThis, not in this module: one process can hold two instances of this module (tsx loads
// a file as CommonJS for `require` and as ESM for `import`), and both must write to one place.
const DEFAULT_DESTINATION = Symbol.for('lattice.logger.defaultDestination');
const shared = globalThis as { [DEFAULT_DESTINATION]?: DestinationStream | null };

/** Sends every logger created later without a destination stream to `stream` (null: restore). */
export function setDefaultLogDestination(stream: DestinationStream | null): void {
  shared[DEFAULT_DESTINATION] = stream;
}

/** What setDefaultLogDestination set, or null. */
export function defaultLogDestination(): DestinationStream | null {
  return shared[DEFAULT_DESTINATION] ?? null;
}

export function createLogger(opts: {
  name: string;
  level: LogLevel;
  /** `'stderr'` keeps stdout for what a command prints (e.g. `lattice bootstrap`'s one JSON object). */
  destination?: DestinationStream | 'stderr';
}): Logger {
  const options: LoggerOptions = {
    name: opts.name,
    level: opts.level,
    formatters: { log: redact },
    base: { pid: process.pid },
  };
  const fallback = defaultLogDestination();
  const logger =
    opts.destination !== undefined && opts.destination !== 'stderr'
      ? pino(options, opts.destination)
      : fallback
        ? pino(options, fallback)
        : opts.destination === 'stderr'
          ? pino(options, processLogDestination(2))
          : pino(options, processLogDestination(1));
  return censoringChildBindings(logger);
}

/**
 * pino runs `formatters.bindings` on the root's bindings only: a child's bindings are censored
 * here instead. Children are created from their parent's prototype chain, so every descendant
 * goes through this `child` too.
 */
function censoringChildBindings(logger: Logger): Logger {
  const child = logger.child;
  logger.child = function censoredChild(this: Logger, bindings, options) {
    return child.call(this, redact(bindings), options);
  } as Logger['child'];
  return logger;
}
