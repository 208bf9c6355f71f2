// A published message as the channel keeps it: the history row, the fan-out publication and the
// history answer entry are three spellings of this one value.
import type { PayloadRef } from '../payload/payload-store.ts';
import type { ChannelPayload } from './channel-command.ts';

export interface ChannelEntry {
  /** The message id the publisher answered with. */
  id: string;
  /** Dense per channel and epoch, from 1. */
  offset: number;
  epoch: string;
  name: string | null;
  payload: ChannelPayload;
  publishedAtMs: number;
}

/** A history answer entry (decisions.md): `data` or `ref`, never both; `name` when set. */
export interface HistoryEntryJson {
  id: string;
  offset: number;
  epoch: string;
  data?: unknown;
  ref?: PayloadRef;
  name?: string;
  published_at: string;
}

export function historyEntryJson(entry: ChannelEntry): HistoryEntryJson {
  const out: HistoryEntryJson = {
    id: entry.id,
    offset: entry.offset,
    epoch: entry.epoch,
    published_at: new Date(entry.publishedAtMs).toISOString(),
  };
  if (entry.payload.kind === 'data') out.data = JSON.parse(entry.payload.json) as unknown;
  else out.ref = entry.payload.ref;
  if (entry.name !== null) out.name = entry.name;
  return out;
}
