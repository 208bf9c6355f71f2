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

// Where loggers without a destination stream of their own write (unset: pino's default, stdout,
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
          ? pino(options, destination(2))
          : pino(options);
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
