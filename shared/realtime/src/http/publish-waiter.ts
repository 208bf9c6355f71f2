// Waiting for a publish to be applied (docs/realtime-http.md "Waiting for the offset"). The
// channel actor fans each publication out only after its batch is committed, and the fan-out
// carries the message id with its offset and epoch: a process that listens on the channel's
// fan-out from before the command is produced sees its own message come by once it is applied.
import type { Logger, Scheduler, Timer } from '@lattice/core';
import type { ChannelId } from '../channel/channel-id.ts';

/** Where the channel actor put a message. */
export interface AppliedPlace {
  offset: number;
  epoch: string;
}

export interface PublicationWatch {
  /** Settles once the publication of the watched message came by; never rejects. */
  readonly applied: Promise<AppliedPlace>;
  /** Stops watching (again: nothing); `applied` may then never settle. */
  end(): void;
}

export interface PublishWaiter {
  /**
   * Starts watching the channel for the publication of `messageId`; resolves once the watch is
   * in place (the subscription confirmed), so a command produced after that cannot be missed.
   * Rejects when the subscription cannot be made.
   */
  watch(id: ChannelId, messageId: string): Promise<PublicationWatch>;
  /** Drops every watch and subscription; the connection stays its owner's. */
  close(): Promise<void>;
}

export interface Deadline {
  /** Resolves when the time is up (never, once cleared). */
  readonly expired: Promise<void>;
  clear(): void;
}

/** A deadline `ms` from now on the scheduler. */
export function deadlineIn(scheduler: Scheduler, ms: number): Deadline {
  let timer: Timer | undefined;
  const expired = new Promise<void>((resolve) => {
    timer = scheduler.setTimeout(resolve, ms);
  });
  return { expired, clear: () => scheduler.clearTimer(timer) };
}

/**
 * A watch being set up: `ready` resolves with it once it is in place, or with null when the
 * deadline came first or it could not be made (the publish then answers 202, as without the
 * preference); `end` stops it whenever it arrives.
 */
export function startWatch(
  waits: PublishWaiter,
  id: ChannelId,
  messageId: string,
  deadline: Deadline,
  log: Logger,
): { ready: Promise<PublicationWatch | null>; end(): void } {
  let ended = false;
  const watching = waits.watch(id, messageId).then(
    (watch) => {
      if (ended) watch.end();
      return watch;
    },
    (err: unknown) => {
      log.warn({ err, channel: id.channel }, 'could not watch a channel for a publish; answering 202');
      return null;
    },
  );
  return {
    ready: Promise.race([watching, deadline.expired.then(() => null)]),
    end() {
      ended = true;
      void watching.then((watch) => watch?.end());
    },
  };
}
