// Test support (`@lattice/core/testing`), never imported by production code: test
// configuration, unique names, captured logs, the test run's log file, and the manual clock and
// scheduler that tests drive.

export type { CapturedLogs, LogLine } from './testing/log-capture.ts';
export { captureLogs, LEVEL } from './testing/log-capture.ts';
export { logToFile, noteInTestLog, writeToTestLog } from './testing/log-file.ts';
export { ManualClock } from './testing/manual-clock.ts';
export { ManualScheduler } from './testing/manual-scheduler.ts';
export { TEST_DATABASE, TEST_SECRET_KEYS, testConfig, testDatabaseUrl } from './testing/test-config.ts';
export { uniqueName } from './testing/unique-name.ts';
