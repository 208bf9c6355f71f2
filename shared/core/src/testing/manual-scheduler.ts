// A Scheduler whose time moves only when a test says so; due timers then run in due order (ties
// in the order they were set), so timer-driven logic is tested exactly and without real waits.
// Exported from `@lattice/core/testing` only.

import type { Scheduler, Timer } from '../scheduler.ts';
import { ManualClock } from './manual-clock.ts';

interface Entry {
  seq: number;
  dueMs: number;
  /** null for a timeout. */
  periodMs: number | null;
  callback: () => void;
}

/** Lets every promise job queued so far run, and the jobs they queue in turn. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export class ManualScheduler extends ManualClock implements Scheduler {
  private readonly timers = new Map<number, Entry>();
  private seq = 0;

  setTimeout(callback: () => void, delayMs: number): Timer {
    return this.add(callback, Math.max(0, delayMs), null);
  }

  setInterval(callback: () => void, periodMs: number): Timer {
    // At least 1 ms, as Node: a zero period would never let time move on.
    const period = Math.max(1, periodMs);
    return this.add(callback, period, period);
  }

  clearTimer(timer: Timer | undefined): void {
    if (timer !== undefined) this.timers.delete((timer as unknown as { seq: number }).seq);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = (): void => {
        this.clearTimer(timer);
        reject(signal?.reason);
      };
      const timer = this.setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Timeouts and intervals set and not yet spent or cleared. */
  pendingTimers(): number {
    return this.timers.size;
  }

  /**
   * Moves time `ms` forward, running the timers that fall due on the way synchronously, each at
   * its due time (timers they set run too when due within `ms`). Promise continuations of those
   * callbacks run only after: use advanceAsync for async loops (a retry that awaits a sleep).
   */
  override advance(ms: number): void {
    const targetMs = this.nowMs() + ms;
    for (let next = this.nextDue(targetMs); next; next = this.nextDue(targetMs)) this.fire(next);
    super.set(Math.max(this.nowMs(), targetMs));
  }

  /**
   * As advance, but lets pending promise jobs settle before each timer and after the last one, so
   * the timers that async code sets once a sleep resolves run within the same advance.
   */
  async advanceAsync(ms: number): Promise<void> {
    const targetMs = this.nowMs() + ms;
    for (;;) {
      await settle();
      const next = this.nextDue(targetMs);
      if (!next) break;
      this.fire(next);
    }
    super.set(Math.max(this.nowMs(), targetMs));
  }

  /** Moves time to `ms` as advance does; moving it back runs nothing and keeps the timers' due times. */
  override set(ms: number): void {
    if (ms > this.nowMs()) this.advance(ms - this.nowMs());
    else super.set(ms);
  }

  /** Lets pending promise jobs run without moving time. */
  settle(): Promise<void> {
    return settle();
  }

  private add(callback: () => void, delayMs: number, periodMs: number | null): Timer {
    const entry: Entry = { seq: ++this.seq, dueMs: this.nowMs() + delayMs, periodMs, callback };
    this.timers.set(entry.seq, entry);
    return { seq: entry.seq } as unknown as Timer;
  }

  private nextDue(untilMs: number): Entry | undefined {
    let next: Entry | undefined;
    for (const e of this.timers.values()) {
      if (e.dueMs <= untilMs && (!next || e.dueMs < next.dueMs)) next = e;
    }
    return next;
  }

  private fire(entry: Entry): void {
    super.set(Math.max(this.nowMs(), entry.dueMs));
    // Rearmed (or dropped) before the call, so the callback may clear its own interval.
    if (entry.periodMs === null) this.timers.delete(entry.seq);
    else entry.dueMs += entry.periodMs;
    entry.callback();
  }
}
