// What a benchmark's receiving child (the mail bench's smart host, the webhook bench's receiver)
// reports over IPC, routed to the measurement under way: each measurement counts its arrivals in
// a tally of its own, and an arrival outside every measurement fails the next one's start.
import type { ChildProcess } from 'node:child_process';

export class MeasuredArrivals<M, A, T extends { add(arrival: A): void }> {
  private current: T | null = null;
  private strays = 0;
  private readonly newTally: () => T;
  private readonly straysError: (strays: number) => string;

  /**
   * `arrivalsIn` reads the arrivals a message of `child` reports (none for other messages);
   * `newTally` makes a measurement's tally; `straysError` says what arrived between measurements.
   */
  constructor(
    child: ChildProcess,
    arrivalsIn: (message: M) => readonly A[],
    newTally: () => T,
    straysError: (strays: number) => string,
  ) {
    this.newTally = newTally;
    this.straysError = straysError;
    child.on('message', (m: M) => {
      for (const r of arrivalsIn(m)) {
        if (this.current) this.current.add(r);
        else this.strays++;
      }
    });
  }

  begin(): T {
    if (this.strays) throw new Error(this.straysError(this.strays));
    this.current = this.newTally();
    return this.current;
  }

  /** The tally under way (a check after the round's wait), or a failure. */
  tally(): T {
    if (!this.current) throw new Error('no measurement under way');
    return this.current;
  }

  end(): void {
    this.current = null;
  }
}
