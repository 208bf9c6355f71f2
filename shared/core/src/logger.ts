// Structured JSON logs (pino). Credentials never reach a log line: known secret-bearing paths
// are redacted at the source.
import { type DestinationStream, type LoggerOptions, type Logger as PinoLogger, pino } from 'pino';

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
  destination?: DestinationStream;
}): Logger {
  const options: LoggerOptions = {
    name: opts.name,
    level: opts.level,
    redact: { paths: REDACT, censor: '[redacted]' },
    base: { pid: process.pid },
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}
