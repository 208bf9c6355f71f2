import type { Clock } from '../clock.ts';

/**
 * A clock that only moves when told to; for unit tests of pure logic. Logic with timers is tested
 * with ManualScheduler (`@lattice/core/testing`), which extends this one.
 */
export class ManualClock implements Clock {
  private ms: number;
  constructor(startMs = 0) {
    this.ms = startMs;
  }
  nowMs(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
}
