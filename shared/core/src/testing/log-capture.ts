// A real pino logger whose lines land in memory, so a test can assert what was logged, how often
// and at which level, and that a secret never reached a log line at all.
import { createLogger, type Logger, type LogLevel } from '../logger.ts';

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** pino's numeric levels, as they appear in `LogLine.level`. */
export const LEVEL = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;

export interface CapturedLogs {
  logger: Logger;
  /** Every line logged so far, parsed, in order. */
  lines: LogLine[];
  /** The lines at exactly `level` (a LEVEL value). */
  at(level: number): LogLine[];
  /** Every line as written (redaction applied), joined by newlines. */
  text(): string;
}

export function captureLogs(opts: { name?: string; level?: LogLevel } = {}): CapturedLogs {
  const raw: string[] = [];
  const lines: LogLine[] = [];
  const logger = createLogger({
    name: opts.name ?? 'test',
    level: opts.level ?? 'debug',
    destination: {
      write: (line: string) => {
        raw.push(line);
        lines.push(JSON.parse(line) as LogLine);
      },
    },
  });
  return {
    logger,
    lines,
    at: (level) => lines.filter((l) => l.level === level),
    text: () => raw.join(''),
  };
}
