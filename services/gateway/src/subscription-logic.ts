// One connection's subscription to one channel, without I/O: which live messages it pushes, which
// it drops as already seen, and when it must fill a gap from history or give up and make the
// client recover (decisions.md "Subscriptions and epochs"). The connection adapter performs the
// actions in order; live messages that arrive while the subscription starts or fills wait in
// `buffer`, so a subscribe's reply goes out before its first push and no message is pushed twice
// or skipped at the seam between history and the live stream.

/** Live messages a subscription holds while it starts or fills a gap. */
export const MAX_BUFFERED = 10_000;

/** What the logic needs of a message: its position. */
export interface Positioned {
  offset: number;
  epoch: string;
}

export interface SubscriptionState<M extends Positioned> {
  /** The epoch of the last message pushed (or of the channel at the start; "" before any message). */
  epoch: string;
  /** The last offset pushed (or the channel's top offset at the start). */
  offset: number;
  /** `starting` until the reply is sent; `filling` while a gap is read from history. */
  phase: 'starting' | 'live' | 'filling';
  /** Live messages waiting for the start or the fill to finish, in arrival order. */
  buffer: M[];
}

export type SubscriptionAction<M> =
  | { type: 'push'; message: M }
  /** Read history after this cursor, then call `filled` with the answer. */
  | { type: 'fill'; after: Positioned }
  /** The gap cannot be filled: end the subscription with `unsubscribed` (reason `recover`). */
  | { type: 'recover' };

export function startingSubscription<M extends Positioned>(): SubscriptionState<M> {
  return { epoch: '', offset: 0, phase: 'starting', buffer: [] };
}

/** A live message from the fan-out. Mutates `state`; returns what to do. */
export function onLive<M extends Positioned>(
  state: SubscriptionState<M>,
  message: M,
): SubscriptionAction<M>[] {
  if (state.phase !== 'live') {
    // A start or a fill that takes too long on a busy channel: the client recovers instead.
    if (state.buffer.length >= MAX_BUFFERED) {
      state.buffer = [];
      return [{ type: 'recover' }];
    }
    state.buffer.push(message);
    return [];
  }
  return admit(state, message);
}

/**
 * The subscribe's reply was sent, at this position: the channel's top when it started (after any
 * replayed messages). Buffered messages are admitted from there.
 */
export function onStarted<M extends Positioned>(
  state: SubscriptionState<M>,
  position: Positioned,
): SubscriptionAction<M>[] {
  state.epoch = position.epoch;
  state.offset = position.offset;
  return drain(state);
}

/**
 * A gap's history read answered: `recovered` as a cursor read says, `entries` after the cursor in
 * order. Pushes what fills the gap, then admits what was buffered meanwhile.
 */
export function onFilled<M extends Positioned>(
  state: SubscriptionState<M>,
  answer: { recovered: boolean; entries: readonly M[] },
): SubscriptionAction<M>[] {
  if (!answer.recovered) {
    state.buffer = [];
    return [{ type: 'recover' }];
  }
  const actions: SubscriptionAction<M>[] = [];
  for (const entry of answer.entries) {
    if (entry.epoch !== state.epoch && state.epoch !== '') break;
    if (entry.offset <= state.offset && state.epoch !== '') continue;
    state.epoch = entry.epoch;
    state.offset = entry.offset;
    actions.push({ type: 'push', message: entry });
  }
  // History that does not reach the message that showed the gap cannot fill it (a stale read):
  // reading again would loop, so the client recovers instead.
  const head = state.buffer[0];
  if (head && head.epoch === state.epoch && head.offset > state.offset + 1) {
    state.buffer = [];
    return [...actions, { type: 'recover' }];
  }
  return [...actions, ...drain(state)];
}

/**
 * The fan-out connection came back after an outage: whatever was published meanwhile is read
 * from history after the cursor, as for a gap. A subscription still starting or filling reads
 * history anyway.
 */
export function onResync<M extends Positioned>(state: SubscriptionState<M>): SubscriptionAction<M>[] {
  if (state.phase !== 'live') return [];
  state.phase = 'filling';
  return [{ type: 'fill', after: { offset: state.offset, epoch: state.epoch } }];
}

function drain<M extends Positioned>(state: SubscriptionState<M>): SubscriptionAction<M>[] {
  state.phase = 'live';
  const actions: SubscriptionAction<M>[] = [];
  while (state.buffer.length > 0 && state.phase === 'live') {
    const next = state.buffer.shift()!;
    const more = admit(state, next);
    actions.push(...more);
    if (more.some((a) => a.type === 'recover')) return actions;
  }
  return actions;
}

function admit<M extends Positioned>(state: SubscriptionState<M>, message: M): SubscriptionAction<M>[] {
  // A subscription that started before the channel's first message adopts that message's epoch.
  const adopting = state.epoch === '' && state.offset === 0;
  if (!adopting && message.epoch !== state.epoch) {
    state.buffer = [];
    return [{ type: 'recover' }];
  }
  if (!adopting && message.offset <= state.offset) return [];
  if (message.offset === state.offset + 1) {
    state.epoch = message.epoch;
    state.offset = message.offset;
    return [{ type: 'push', message }];
  }
  // A gap: fill it from history first; this message and later ones wait.
  state.phase = 'filling';
  state.buffer.unshift(message);
  return [{ type: 'fill', after: { offset: state.offset, epoch: state.epoch } }];
}
