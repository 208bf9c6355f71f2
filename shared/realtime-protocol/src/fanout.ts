// The fan-out encoding: what a channel actor publishes over Redis pub/sub for the gateways, after
// a batch is durable. A channel's messages go to the channel's pub/sub channel; the outcome of
// each presence command goes to the result channel of the connection that sent it. The texts are
// JSON; the encoders below fix them byte for byte (inline data is spliced in as the publisher's
// JSON text, never re-serialized), and the decoders read them back for the gateway.
import { type ErrorCode, PRESENCE_ACTIONS, type PresenceAction } from './codes.ts';
import { isPlainObject, jsonText } from './json.ts';
import type { PayloadRef } from './server-frames.ts';

/** A message's payload: inline JSON text, or a reference to the stored payload. */
export type FanOutPayload = { kind: 'data'; json: string } | { kind: 'ref'; ref: PayloadRef };

/** A published message as the channel keeps it (the same value as a history entry). */
export interface FanOutEntry {
  /** The message id the publisher answered with. */
  id: string;
  /** Dense per channel and epoch, from 1. */
  offset: number;
  epoch: string;
  name: string | null;
  payload: FanOutPayload;
  publishedAtMs: number;
}

export type FanOutMessage =
  | { type: 'publication'; channel: string; entry: FanOutEntry }
  | {
      type: 'presence';
      channel: string;
      action: PresenceAction;
      identity: string;
      /** The member's connections after the change (0 on leave). */
      connections: number;
      infoJson: string | null;
      /** Why the member left (`expired`, or what the gateway said). */
      reason?: string;
    }
  | {
      /** A client event: published by a gateway, never stored, never given an offset. */
      type: 'event';
      channel: string;
      /** The publisher's `ext:` subject. */
      from: string;
      /** The publishing connection, which gateways skip. */
      connectionId: string;
      /** The data as the client sent it, compact JSON text. */
      dataJson: string;
    };

/** Why the channel actor refused a presence command (see PRESENCE_ERROR_REPLY_CODES). */
export type PresenceErrorCode = 'full' | 'invalid' | 'forbidden';

/**
 * The WebSocket error code a refused presence command answers with: a full roster is
 * `rate_limited` (429 over HTTP); `invalid` and `forbidden` keep their names.
 */
export const PRESENCE_ERROR_REPLY_CODES = {
  full: 'rate_limited',
  invalid: 'invalid',
  forbidden: 'forbidden',
} as const satisfies Record<PresenceErrorCode, ErrorCode>;

export interface PresenceResult {
  commandId: string;
  channel: string;
  connectionId: string;
  action: 'enter' | 'update' | 'leave';
  error?: { code: PresenceErrorCode; message: string };
}

// The pub/sub channels these travel on are Redis names, built by @lattice/redis keys.ts.

/**
 * The JSON text subscribers receive. A publication is the history entry plus `type` and
 * `channel`; inline data is spliced in as the publisher's JSON text, never re-serialized.
 */
export function encodeFanOutMessage(m: FanOutMessage): string {
  if (m.type === 'event') {
    const head = JSON.stringify({
      type: 'event',
      channel: m.channel,
      from: m.from,
      connection: m.connectionId,
    });
    return `${head.slice(0, -1)},"data":${m.dataJson}}`;
  }
  if (m.type === 'presence') {
    const head = JSON.stringify({
      type: 'presence',
      channel: m.channel,
      action: m.action,
      identity: m.identity,
      connections: m.connections,
      ...(m.reason !== undefined ? { reason: m.reason } : {}),
    });
    return `${head.slice(0, -1)},"info":${m.infoJson ?? 'null'}}`;
  }
  const e = m.entry;
  const head = JSON.stringify({
    type: 'publication',
    channel: m.channel,
    id: e.id,
    offset: e.offset,
    epoch: e.epoch,
    ...(e.name !== null ? { name: e.name } : {}),
    published_at: new Date(e.publishedAtMs).toISOString(),
    ...(e.payload.kind === 'ref' ? { ref: e.payload.ref } : {}),
  });
  return e.payload.kind === 'data' ? `${head.slice(0, -1)},"data":${e.payload.json}}` : head;
}

export function encodePresenceResult(r: PresenceResult): string {
  return JSON.stringify({
    type: 'presence_result',
    command_id: r.commandId,
    channel: r.channel,
    connection_id: r.connectionId,
    action: r.action,
    ok: r.error === undefined,
    ...(r.error ? { error: r.error } : {}),
  });
}

const PRESENCE_ACTION_SET: ReadonlySet<unknown> = new Set(PRESENCE_ACTIONS);
const RESULT_ACTION_SET: ReadonlySet<unknown> = new Set(['enter', 'update', 'leave']);
const RESULT_CODE_SET: ReadonlySet<unknown> = new Set(Object.keys(PRESENCE_ERROR_REPLY_CODES));

function parsed(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return isPlainObject(v) ? v : null;
  } catch {
    return null;
  }
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function refOf(v: unknown): PayloadRef | null {
  if (!isPlainObject(v) || !isString(v.bucket_key) || !isCount(v.size)) return null;
  if (v.content_type === undefined) return { bucket_key: v.bucket_key, size: v.size };
  if (!isString(v.content_type)) return null;
  return { bucket_key: v.bucket_key, size: v.size, content_type: v.content_type };
}

/**
 * A fan-out message read back from its text, or null when the text is not one. Inline data and
 * presence info come back as compact JSON text (re-serialized: equal to what was encoded when
 * that was compact).
 */
export function decodeFanOutMessage(text: string): FanOutMessage | null {
  const v = parsed(text);
  if (v === null || !isString(v.channel)) return null;
  if (v.type === 'presence') {
    if (!PRESENCE_ACTION_SET.has(v.action) || !isString(v.identity) || !isCount(v.connections)) return null;
    if (v.reason !== undefined && !isString(v.reason)) return null;
    if (!Object.hasOwn(v, 'info')) return null;
    const m: FanOutMessage = {
      type: 'presence',
      channel: v.channel,
      action: v.action as PresenceAction,
      identity: v.identity,
      connections: v.connections,
      infoJson: v.info === null ? null : jsonText(v.info),
    };
    if (v.reason !== undefined) m.reason = v.reason;
    return m;
  }
  if (v.type === 'event') {
    if (!isString(v.from) || !isString(v.connection) || !Object.hasOwn(v, 'data')) return null;
    const dataJson = jsonText(v.data);
    if (dataJson === null) return null;
    return { type: 'event', channel: v.channel, from: v.from, connectionId: v.connection, dataJson };
  }
  if (v.type !== 'publication') return null;
  if (!isString(v.id) || !isCount(v.offset) || !isString(v.epoch) || !isString(v.published_at)) return null;
  if (v.name !== undefined && !isString(v.name)) return null;
  const publishedAtMs = Date.parse(v.published_at);
  if (Number.isNaN(publishedAtMs)) return null;
  const hasData = Object.hasOwn(v, 'data');
  const ref = v.ref === undefined ? null : refOf(v.ref);
  if (hasData === (v.ref !== undefined) || (v.ref !== undefined && ref === null)) return null;
  const json = hasData ? jsonText(v.data) : null;
  if (hasData && json === null) return null;
  return {
    type: 'publication',
    channel: v.channel,
    entry: {
      id: v.id,
      offset: v.offset,
      epoch: v.epoch,
      name: isString(v.name) ? v.name : null,
      payload: json !== null ? { kind: 'data', json } : { kind: 'ref', ref: ref! },
      publishedAtMs,
    },
  };
}

/** A presence result read back from its text, or null when the text is not one. */
export function decodePresenceResult(text: string): PresenceResult | null {
  const v = parsed(text);
  if (v === null || v.type !== 'presence_result') return null;
  if (!isString(v.command_id) || !isString(v.channel) || !isString(v.connection_id)) return null;
  if (!RESULT_ACTION_SET.has(v.action) || typeof v.ok !== 'boolean') return null;
  const r: PresenceResult = {
    commandId: v.command_id,
    channel: v.channel,
    connectionId: v.connection_id,
    action: v.action as PresenceResult['action'],
  };
  if (v.ok) return v.error === undefined ? r : null;
  const e = v.error;
  if (!isPlainObject(e) || !RESULT_CODE_SET.has(e.code) || !isString(e.message)) return null;
  r.error = { code: e.code as PresenceErrorCode, message: e.message };
  return r;
}
