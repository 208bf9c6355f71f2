// The reply to a subscribe (decisions.md): the channel's position when the subscription started,
// and for a recovering subscribe the entries after the cursor, within the replay limits of
// 1 000 entries and 512 KiB of serialized entries; beyond them, `recovered: false` with nothing
// replayed (the client resyncs), and the subscription is live from the top either way.
import {
  type Cursor,
  type HistoryEntry,
  type HistoryResult,
  RECOVER_MAX_BYTES,
  RECOVER_MAX_ENTRIES,
  type SubscribeResult,
  utf8ByteLength,
} from '@lattice/realtime-protocol';

export function subscribeReply(
  answer: HistoryResult,
  recover: Cursor | undefined,
  limits = { entries: RECOVER_MAX_ENTRIES, bytes: RECOVER_MAX_BYTES },
): SubscribeResult {
  const result: SubscribeResult = {
    epoch: answer.epoch,
    offset: answer.top_offset,
    recovered: true,
    messages: [],
  };
  if (!recover) return result;
  const entries = answer.data as HistoryEntry[];
  // A cursor taken before the channel's first message (0, "") is of every epoch.
  const sameEpoch = answer.epoch === recover.epoch || (recover.offset === 0 && recover.epoch === '');
  const missed = sameEpoch ? answer.top_offset - recover.offset : 0;
  let bytes = 0;
  for (const e of entries) bytes += utf8ByteLength(JSON.stringify(e));
  if (missed > limits.entries || bytes > limits.bytes) {
    result.recovered = false;
    return result;
  }
  result.recovered = answer.recovered;
  result.messages = entries;
  return result;
}
