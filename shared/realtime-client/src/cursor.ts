// A subscription's cursor: the last offset it delivered, under its epoch. It decides which
// messages reach the app (each at most once, in offset order within an epoch) and what a
// resubscribe asks the gateway to replay. Pure functions: the client keeps one cursor per channel.
import type { Cursor, HistoryEntry, SubscribeResult } from '@lattice/realtime-protocol';

/** The part of a message the cursor looks at. */
export interface Positioned {
  offset: number;
  epoch: string;
}

export interface Advance {
  /** False for a message at or below the cursor in the same epoch: already delivered. */
  deliver: boolean;
  cursor: Cursor;
}

/**
 * The cursor after seeing `message`. A cursor taken on an empty channel (epoch "") adopts the
 * epoch of its first message, which is not a gap (decisions.md). A message under another epoch
 * means the channel started over (the gateway has already told us through a recover or a
 * `recovered: false`), so it is delivered and its epoch adopted. `null` is no cursor yet.
 */
export function advanceCursor(cursor: Cursor | null, message: Positioned): Advance {
  const at = { offset: message.offset, epoch: message.epoch };
  if (cursor === null || cursor.epoch === '' || cursor.epoch !== message.epoch) {
    return { deliver: true, cursor: at };
  }
  if (message.offset <= cursor.offset) return { deliver: false, cursor };
  return { deliver: true, cursor: at };
}

export interface SubscribeOutcome {
  /** The replayed entries to deliver, in order, none already delivered. */
  deliver: HistoryEntry[];
  cursor: Cursor;
  /** For a recovering subscribe, the reply's `recovered`; null for a plain one. */
  recovered: boolean | null;
}

/**
 * Applies a subscribe reply to the cursor the subscribe was sent with (`sent`, null when it had no
 * `recover`). A plain subscribe starts at the channel's top. A recovering one delivers the
 * replayed entries after the cursor, then stands at the top; with `recovered: false` messages were
 * missed: the cursor moves to the reply's position and the app is told to resync.
 */
export function applySubscribeResult(sent: Cursor | null, result: SubscribeResult): SubscribeOutcome {
  const top = { offset: result.offset, epoch: result.epoch };
  if (sent === null) return { deliver: [], cursor: top, recovered: null };
  if (!result.recovered) return { deliver: [], cursor: top, recovered: false };
  let cursor: Cursor = sent;
  const deliver: HistoryEntry[] = [];
  for (const entry of result.messages) {
    const step = advanceCursor(cursor, entry);
    cursor = step.cursor;
    if (step.deliver) deliver.push(entry);
  }
  // Nothing replayed past the top in the same epoch: stand at the top, so that a later push at or
  // below it (there should be none) is not taken for new.
  if (cursor.epoch === '' || (cursor.epoch === top.epoch && top.offset > cursor.offset)) cursor = top;
  return { deliver, cursor, recovered: true };
}
