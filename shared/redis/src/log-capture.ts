// Test helper (not exported): a real pino logger whose lines land in an array, so tests can
// assert what was logged and how often.
import { createLogger, type Logger } from '@lattice/core';

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export const LEVEL = { debug: 20, info: 30, warn: 40, error: 50 } as const;

export function captureLogs(): { logger: Logger; lines: LogLine[]; at(level: number): LogLine[] } {
  const lines: LogLine[] = [];
  const logger = createLogger({
    name: 'test',
    level: 'debug',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) },
  });
  return { logger, lines, at: (level) => lines.filter((l) => l.level === level) };
}
