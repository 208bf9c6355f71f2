// A small typed event emitter (no Node EventEmitter: the client runs in browsers). A listener
// that throws must not break the handling of the frame that triggered it, so the error goes to
// `onListenerError` (the client turns it into an 'error' event) and the other listeners still run.

export class Emitter<Events extends object> {
  readonly #listeners = new Map<keyof Events, Set<(payload: never) => void>>();
  readonly #onListenerError: (error: unknown, event: keyof Events) => void;

  constructor(onListenerError: (error: unknown, event: keyof Events) => void) {
    this.#onListenerError = onListenerError;
  }

  on<K extends keyof Events>(event: K, listener: (payload: Events[K]) => void): void {
    let set = this.#listeners.get(event);
    if (!set) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    set.add(listener as (payload: never) => void);
  }

  off<K extends keyof Events>(event: K, listener: (payload: Events[K]) => void): void {
    this.#listeners.get(event)?.delete(listener as (payload: never) => void);
  }

  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    const set = this.#listeners.get(event);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as (payload: Events[K]) => void)(payload);
      } catch (error) {
        this.#onListenerError(error, event);
      }
    }
  }
}
