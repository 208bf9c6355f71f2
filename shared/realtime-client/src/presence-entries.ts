// The presence entries the app holds, so that the client re-enters them after a reconnect (the
// gateway leaves a connection's entries when it closes). An enter's reply may come after the app
// already called leave(): each channel's intent carries a version so that such a late reply does
// not bring the entry back.
import type { JsonValue } from '@lattice/realtime-protocol';

export interface PresenceEntry {
  info: JsonValue | undefined;
  ttlSeconds: number | undefined;
}

export class PresenceEntries {
  readonly #entries = new Map<string, PresenceEntry>();
  readonly #versions = new Map<string, number>();

  /** Call when enter() is called; pass the result to entered() when its reply succeeds. */
  begin(channel: string): number {
    return this.#versions.get(channel) ?? 0;
  }

  entered(channel: string, version: number, entry: PresenceEntry): void {
    if ((this.#versions.get(channel) ?? 0) === version) this.#entries.set(channel, entry);
  }

  updated(channel: string, info: JsonValue): void {
    const entry = this.#entries.get(channel);
    if (entry) entry.info = info;
  }

  /** On leave(): the entry is gone at once, and any enter still in flight will not restore it. */
  left(channel: string): void {
    this.#versions.set(channel, (this.#versions.get(channel) ?? 0) + 1);
    this.#entries.delete(channel);
  }

  list(): [string, PresenceEntry][] {
    return [...this.#entries];
  }

  clear(): void {
    for (const channel of this.#entries.keys()) this.left(channel);
  }
}
