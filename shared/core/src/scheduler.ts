// Time and timers as one dependency. Logic that waits (retry delays, periodic refreshes, sweeps,
// timeouts) takes a Scheduler, so its tests drive time with ManualScheduler
// (`@lattice/core/testing`) instead of waiting for real timers. A Scheduler is a Clock, so it can
// be passed wherever a `clock` is taken.
import { type Clock, sleep } from './clock.ts';

declare const timerBrand: unique symbol;

/** A pending timeout or interval; only the scheduler that made it can clear it. */
export interface Timer {
  readonly [timerBrand]: true;
}

export interface TimerOptions {
  /** As Node's `unref()`: a pending timer does not keep the process alive. Default false. */
  unref?: boolean;
}

export interface Scheduler extends Clock {
  /** Calls `callback` once, `delayMs` from now. */
  setTimeout(callback: () => void, delayMs: number, options?: TimerOptions): Timer;
  /** Calls `callback` every `periodMs` until cleared. */
  setInterval(callback: () => void, periodMs: number, options?: TimerOptions): Timer;
  /** Clears a timeout or an interval; undefined or an already spent timer is ignored. */
  clearTimer(timer: Timer | undefined): void;
  /** Resolves after `ms`; rejects with the signal's reason if it is aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

// Node's timer objects are the handles: no wrapper allocated per timer.
type NodeTimer = ReturnType<typeof setTimeout>;
const asTimer = (t: NodeTimer): Timer => t as unknown as Timer;

export const systemScheduler: Scheduler = {
  nowMs: () => Date.now(),
  setTimeout(callback, delayMs, options) {
    const t = setTimeout(callback, delayMs);
    if (options?.unref) t.unref();
    return asTimer(t);
  },
  setInterval(callback, periodMs, options) {
    const t = setInterval(callback, periodMs);
    if (options?.unref) t.unref();
    return asTimer(t);
  },
  clearTimer(timer) {
    // Node's clearTimeout clears intervals too.
    if (timer !== undefined) clearTimeout(timer as unknown as NodeTimer);
  },
  sleep,
};
