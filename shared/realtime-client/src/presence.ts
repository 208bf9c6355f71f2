// The presence API: enter, update, leave, get, stats. Entries the app holds are re-entered on
// every new connection (the gateway leaves a connection's entries when it closes) with the last
// info and ttl, until the app leaves.
import type { JsonValue, PresenceGetResult, PresenceStatsResult } from '@lattice/realtime-protocol';
import type { Emitter } from './emitter.ts';
import { RealtimeError } from './errors.ts';
import type { FrameBody, Outbox } from './outbox.ts';
import { PresenceEntries } from './presence-entries.ts';
import type { ClientEvents, PresenceApi, PresenceEnterOptions } from './types.ts';

export class Presence implements PresenceApi {
  readonly #outbox: Outbox;
  readonly #emitter: Emitter<ClientEvents>;
  readonly #entries = new PresenceEntries();

  constructor(outbox: Outbox, emitter: Emitter<ClientEvents>) {
    this.#outbox = outbox;
    this.#emitter = emitter;
  }

  async enter(channel: string, options: PresenceEnterOptions = {}): Promise<void> {
    const version = this.#entries.begin(channel);
    await this.#outbox.request(enterFrame(channel, options.info, options.ttlSeconds));
    this.#entries.entered(channel, version, { info: options.info, ttlSeconds: options.ttlSeconds });
  }

  async update(channel: string, info: JsonValue): Promise<void> {
    await this.#outbox.request({ action: 'presence.update', channel, info });
    this.#entries.updated(channel, info);
  }

  async leave(channel: string): Promise<void> {
    this.#entries.left(channel);
    await this.#outbox.request({ action: 'presence.leave', channel });
  }

  get(channel: string): Promise<PresenceGetResult> {
    return this.#outbox.request({ action: 'presence.get', channel }) as Promise<PresenceGetResult>;
  }

  stats(channel: string): Promise<PresenceStatsResult> {
    return this.#outbox.request({ action: 'presence.stats', channel }) as Promise<PresenceStatsResult>;
  }

  /** After each auth. A refusal is reported; `forbidden` (the token lost presence there) also forgets the entry. */
  reenterAll(): void {
    const connection = this.#outbox.connection;
    for (const [channel, entry] of this.#entries.list()) {
      this.#outbox.send(enterFrame(channel, entry.info, entry.ttlSeconds), {
        resolve: () => {},
        reject: (error) => {
          if (this.#outbox.connection !== connection) return; // the next connection re-enters
          if (error instanceof RealtimeError && error.code === 'forbidden') this.#entries.left(channel);
          this.#emitter.emit('error', error);
        },
      });
    }
  }

  clear(): void {
    this.#entries.clear();
  }
}

function enterFrame(channel: string, info: JsonValue | undefined, ttlSeconds: number | undefined): FrameBody {
  return {
    action: 'presence.enter',
    channel,
    ...(info === undefined ? {} : { info }),
    ...(ttlSeconds === undefined ? {} : { ttl_seconds: ttlSeconds }),
  };
}
