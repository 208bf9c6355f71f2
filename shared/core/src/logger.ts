// Structured JSON logs (pino). Credentials never reach a log line: known secret-bearing paths
// are redacted at the source.
import {
  type DestinationStream,
  destination,
  type LoggerOptions,
  type Logger as PinoLogger,
  pino,
} from 'pino';

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

export function createLogger(opts: {
  name: string;
  level: LogLevel;
  /** `'stderr'` keeps stdout for what a command prints (e.g. `lattice bootstrap`'s one JSON object). */
  destination?: DestinationStream | 'stderr';
}): Logger {
  const options: LoggerOptions = {
    name: opts.name,
    level: opts.level,
    redact: { paths: REDACT, censor: '[redacted]' },
    base: { pid: process.pid },
  };
  if (opts.destination === 'stderr') return pino(options, destination(2));
  return opts.destination ? pino(options, opts.destination) : pino(options);
}
