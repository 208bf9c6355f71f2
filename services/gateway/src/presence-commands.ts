// Presence work goes to the channel actor, the roster's single writer, as channel commands on
// Kafka; the actor answers each command on this connection's result channel (Redis), which the
// hub hands to `resolve`. A command nobody answered within the timeout is `unavailable` to the
// client. Keep-alive refreshes and the leaves of closed connections are sent without waiting.
import { type Logger, newId, type Scheduler, type Timer } from '@lattice/core';
import {
  type ChannelCommandPublisher,
  type ChannelId,
  type PresenceCommandInput,
  presenceCommandRecord,
} from '@lattice/realtime';
import type { PresenceResult } from '@lattice/realtime-protocol';

export class PresenceUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PresenceUnavailableError';
  }
}

export interface PresenceCommands {
  /** Sends the command and resolves with the actor's result; rejects with PresenceUnavailableError. */
  request(id: ChannelId, input: PresenceCommandInput): Promise<PresenceResult>;
  /** Sends the command; failures are logged. */
  send(id: ChannelId, input: PresenceCommandInput): void;
  /** A result from the hub. */
  resolve(result: PresenceResult): void;
  /** Waits for the commands sent so far to be acknowledged by Kafka (or to fail). */
  flush(): Promise<void>;
}

export interface PresenceCommandsOptions {
  commands: ChannelCommandPublisher;
  scheduler: Scheduler;
  logger: Logger;
  /** How long a request waits for the actor's result. */
  timeoutMs: number;
}

interface Waiting {
  resolve(result: PresenceResult): void;
  reject(err: Error): void;
  timer: Timer;
}

export function createPresenceCommands(opts: PresenceCommandsOptions): PresenceCommands {
  const { scheduler } = opts;
  const log = opts.logger.child({ component: 'gateway-presence' });
  const waiting = new Map<string, Waiting>();
  const inFlight = new Set<Promise<void>>();

  function produce(id: ChannelId, commandId: string, input: PresenceCommandInput): Promise<void> {
    const sent = opts.commands.publish(id, presenceCommandRecord(id, commandId, scheduler.nowMs(), input));
    const tracked = sent.then(
      () => undefined,
      () => undefined,
    );
    inFlight.add(tracked);
    void tracked.finally(() => inFlight.delete(tracked));
    return sent;
  }

  return {
    request(id, input) {
      const commandId = newId();
      return new Promise<PresenceResult>((resolve, reject) => {
        const timer = scheduler.setTimeout(
          () => {
            waiting.delete(commandId);
            reject(new PresenceUnavailableError('the channel did not answer the presence command in time'));
          },
          opts.timeoutMs,
          { unref: true },
        );
        // Registered before sending: the answer may come back before the produce is acknowledged.
        waiting.set(commandId, { resolve, reject, timer });
        produce(id, commandId, input).catch((err: unknown) => {
          const w = waiting.get(commandId);
          if (!w) return;
          waiting.delete(commandId);
          scheduler.clearTimer(w.timer);
          log.warn({ err, channel: id.channel }, 'a presence command could not be sent');
          reject(new PresenceUnavailableError('presence is unavailable right now', { cause: err }));
        });
      });
    },
    send(id, input) {
      produce(id, newId(), input).catch((err: unknown) =>
        log.warn({ err, channel: id.channel, action: input.action }, 'a presence command could not be sent'),
      );
    },
    resolve(result) {
      const w = waiting.get(result.commandId);
      if (!w) return;
      waiting.delete(result.commandId);
      scheduler.clearTimer(w.timer);
      w.resolve(result);
    },
    async flush() {
      await Promise.all([...inFlight]);
    },
  };
}
