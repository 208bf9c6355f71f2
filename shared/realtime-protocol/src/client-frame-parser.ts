// The client frame parser: a pure function from a text frame to a typed frame, or to the
// `invalid` error reply the gateway sends back (with the frame's `id` when it has one; without an
// `id` key when the frame is not JSON, not an object, or carries no `id`). Validation is written
// by hand so that the module stays dependency-free. Rules beyond shape are the frame-level limits
// of the spec: channel names, 32 KiB of client event data, 10 KiB of presence info, presence
// lifetime 1 to 3600 s, history windows and cursors as the HTTP history read.
//
// The text frame's own size (65 536 bytes, close 1009) is the gateway's to check before parsing.
import type {
  ClientAction,
  ClientFrame,
  Cursor,
  FrameId,
  HistorySelector,
  PresenceEnterFrame,
} from './client-frames.ts';
import { CLIENT_ACTIONS } from './client-frames.ts';
import { isPlainObject, type JsonValue, jsonText, utf8ByteLength } from './json.ts';
import {
  CHANNEL_NAME_MAX,
  CHANNEL_NAME_MIN,
  CLIENT_EVENT_DATA_MAX_BYTES,
  EPOCH_MAX_LENGTH,
  HISTORY_LAST_N_MAX,
  HISTORY_LAST_N_MIN,
  NAMESPACE_NAME_MAX,
  PRESENCE_INFO_MAX_BYTES,
  PRESENCE_TTL_DEFAULT_SECONDS,
  PRESENCE_TTL_MAX_SECONDS,
  PRESENCE_TTL_MIN_SECONDS,
} from './limits.ts';
import { type ErrorReply, errorReply } from './server-frames.ts';

/** A parsed frame: as sent, with `presence.enter`'s defaults filled in (info null, ttl 60 s). */
export type ParsedClientFrame = Exclude<ClientFrame, PresenceEnterFrame> | Required<PresenceEnterFrame>;

export type ClientFrameParse =
  | {
      ok: true;
      frame: ParsedClientFrame;
      /**
       * The compact JSON text the limits were measured on: `data` of `publish`, `info` of
       * `presence.enter` and `presence.update` (null when the info is null or not given); null
       * for every other action.
       */
      json: string | null;
    }
  | { ok: false; reply: ErrorReply };

/** The fields each action takes besides `id` and `action`. */
const FIELDS: Record<ClientAction, readonly string[]> = {
  auth: ['token'],
  subscribe: ['channel', 'recover'],
  unsubscribe: ['channel'],
  publish: ['channel', 'data'],
  'presence.enter': ['channel', 'info', 'ttl_seconds'],
  'presence.update': ['channel', 'info'],
  'presence.leave': ['channel'],
  'presence.get': ['channel'],
  'presence.stats': ['channel'],
  history: ['channel', 'last_n', 'last_ms', 'offset', 'epoch'],
};

const CHANNEL_RE = /^[a-zA-Z0-9._-]+:[a-zA-Z0-9._:-]+$/;

class Invalid extends Error {}

function fail(message: string): never {
  throw new Invalid(message);
}

/** Parses one text frame. Never throws. */
export function parseClientFrame(text: string): ClientFrameParse {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reply: errorReply('invalid', 'the frame is not valid JSON') };
  }
  return validateClientFrame(value);
}

/** Validates a frame already decoded from JSON (or built in memory). Never throws on JSON values. */
export function validateClientFrame(value: unknown): ClientFrameParse {
  if (!isPlainObject(value)) {
    return { ok: false, reply: errorReply('invalid', 'a frame must be a JSON object') };
  }
  if (!Object.hasOwn(value, 'id') || jsonText(value.id) === null) {
    return { ok: false, reply: errorReply('invalid', 'id is required (any JSON value)') };
  }
  const id = value.id as FrameId;
  try {
    return { ok: true, ...frameOf(id, value) };
  } catch (err) {
    if (err instanceof Invalid) return { ok: false, reply: errorReply('invalid', err.message, id) };
    throw err;
  }
}

function frameOf(id: FrameId, f: Record<string, unknown>): { frame: ParsedClientFrame; json: string | null } {
  const action = f.action;
  if (action === undefined) fail('action is required');
  if (typeof action !== 'string' || !(CLIENT_ACTIONS as readonly string[]).includes(action)) {
    fail(`unknown action ${JSON.stringify(action)}; expected one of ${CLIENT_ACTIONS.join(', ')}`);
  }
  const a = action as ClientAction;
  const allowed = FIELDS[a];
  for (const key of Object.keys(f)) {
    if (key !== 'id' && key !== 'action' && !allowed.includes(key)) fail(`${key} is not allowed in ${a}`);
  }
  if (a === 'auth') {
    if (typeof f.token !== 'string' || f.token === '') fail('token must be a non-empty string');
    return { frame: { id, action: a, token: f.token }, json: null };
  }
  const channel = channelOf(f.channel);
  switch (a) {
    case 'subscribe': {
      if (f.recover === undefined) return { frame: { id, action: a, channel }, json: null };
      if (!isPlainObject(f.recover)) fail('recover must be an object {offset, epoch}');
      for (const key of Object.keys(f.recover)) {
        if (key !== 'offset' && key !== 'epoch') fail(`recover.${key} is not allowed`);
      }
      const recover = cursorOf(f.recover.offset, f.recover.epoch, 'recover.');
      return { frame: { id, action: a, channel, recover }, json: null };
    }
    case 'publish': {
      if (!Object.hasOwn(f, 'data')) fail('data is required');
      const json = jsonOf(f.data, 'data');
      const bytes = utf8ByteLength(json);
      if (bytes > CLIENT_EVENT_DATA_MAX_BYTES) {
        fail(`data is ${bytes} bytes serialized; at most ${CLIENT_EVENT_DATA_MAX_BYTES} are allowed`);
      }
      return { frame: { id, action: a, channel, data: f.data as JsonValue }, json };
    }
    case 'presence.enter': {
      const info = Object.hasOwn(f, 'info') ? (f.info as JsonValue) : null;
      const json = infoJsonOf(info);
      let ttl = PRESENCE_TTL_DEFAULT_SECONDS;
      if (Object.hasOwn(f, 'ttl_seconds')) {
        const t = f.ttl_seconds;
        if (
          typeof t !== 'number' ||
          !Number.isInteger(t) ||
          t < PRESENCE_TTL_MIN_SECONDS ||
          t > PRESENCE_TTL_MAX_SECONDS
        ) {
          fail(
            `ttl_seconds must be an integer from ${PRESENCE_TTL_MIN_SECONDS} to ${PRESENCE_TTL_MAX_SECONDS}`,
          );
        }
        ttl = t;
      }
      return { frame: { id, action: a, channel, info, ttl_seconds: ttl }, json };
    }
    case 'presence.update': {
      if (!Object.hasOwn(f, 'info')) fail('info is required');
      const info = f.info as JsonValue;
      return { frame: { id, action: a, channel, info }, json: infoJsonOf(info) };
    }
    case 'history':
      return { frame: { id, action: a, channel, ...historySelectorOf(f) }, json: null };
    default:
      return { frame: { id, action: a, channel }, json: null };
  }
}

function channelOf(v: unknown): string {
  if (v === undefined) fail('channel is required');
  if (typeof v !== 'string') fail('channel must be a string');
  if (v.length < CHANNEL_NAME_MIN || v.length > CHANNEL_NAME_MAX) {
    fail(`channel must be ${CHANNEL_NAME_MIN} to ${CHANNEL_NAME_MAX} characters`);
  }
  const colon = v.indexOf(':');
  if (!CHANNEL_RE.test(v) || colon > NAMESPACE_NAME_MAX) {
    fail(
      `channel must be namespace:rest of letters, digits and . _ : - (namespace 1 to ${NAMESPACE_NAME_MAX} characters)`,
    );
  }
  return v;
}

function jsonOf(v: unknown, name: string): string {
  const json = jsonText(v);
  if (json === null) fail(`${name} must be a JSON value`);
  return json;
}

/** The info's compact JSON (null for null info), or `invalid` when over 10 240 bytes. */
function infoJsonOf(info: unknown): string | null {
  if (info === null) return null;
  const json = jsonOf(info, 'info');
  const bytes = utf8ByteLength(json);
  if (bytes > PRESENCE_INFO_MAX_BYTES) {
    fail(`info is ${bytes} bytes serialized; at most ${PRESENCE_INFO_MAX_BYTES} are allowed`);
  }
  return json;
}

function cursorOf(offset: unknown, epoch: unknown, prefix: string): Cursor {
  if (offset === undefined) fail(`${prefix}offset is required with ${prefix}epoch: a cursor is both`);
  if (epoch === undefined) fail(`${prefix}epoch is required with ${prefix}offset: a cursor is both`);
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
    fail(`${prefix}offset must be an integer >= 0`);
  }
  if (typeof epoch !== 'string' || epoch.length > EPOCH_MAX_LENGTH) {
    fail(`${prefix}epoch must be a string of at most ${EPOCH_MAX_LENGTH} characters`);
  }
  return { offset, epoch };
}

function historySelectorOf(f: Record<string, unknown>): HistorySelector {
  const has = (k: string) => Object.hasOwn(f, k);
  const windows = ['last_n', 'last_ms'].filter(has);
  const cursor = has('offset') || has('epoch');
  if (windows.length === 2) fail('last_n and last_ms cannot be given together: give one window');
  if (windows.length === 1 && cursor) {
    fail(`${windows[0]} cannot be given with a cursor (offset, epoch): give exactly one`);
  }
  if (has('last_n')) {
    const n = f.last_n;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < HISTORY_LAST_N_MIN || n > HISTORY_LAST_N_MAX) {
      fail(`last_n must be an integer from ${HISTORY_LAST_N_MIN} to ${HISTORY_LAST_N_MAX}`);
    }
    return { last_n: n };
  }
  if (has('last_ms')) {
    const ms = f.last_ms;
    if (typeof ms !== 'number' || !Number.isFinite(ms) || !(ms > 0)) {
      fail('last_ms must be a positive number of milliseconds');
    }
    return { last_ms: ms };
  }
  if (cursor) return cursorOf(f.offset, f.epoch, '');
  return fail('history needs exactly one of a window (last_n or last_ms) or a cursor (offset and epoch)');
}
