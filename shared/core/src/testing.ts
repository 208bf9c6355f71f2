// Test support (exported as `@lattice/core/testing`, never used in production).
export { ManualClock } from './clock.ts';
export { ManualScheduler } from './scheduler.manual.ts';
