// History and presence reads for both HTTP surfaces. The query rules (spec "History", decisions.md):
// `last_n` (integer 1..1000) or `last_ms` (positive number of milliseconds) — the window — or
// `offset` + `epoch` together — the cursor; exactly one of window or cursor. Anything else is a
// 400 naming the fields: a half cursor, a cursor and a window, both windows, neither. The
// readers' refusals map to 404 (namespace not registered) and 403 (presence disabled); a
// namespace with history off answers an empty result; a failing database answers 503.
import type { Clock, Environment, FieldError, Logger } from '@lattice/core';
import { ApiError, systemClock } from '@lattice/core';
import { HTTP_ERRORS } from '@lattice/http';
import type {
  HistoryAnswer,
  HistoryCursor,
  HistoryReader,
  HistoryWindow,
} from '../history/history-reader.ts';
import { HISTORY_LAST_N_MAX } from '../history/history-reader.ts';
import { channelNameProblem, namespaceOf } from '../names.ts';
import type { PresenceReader } from '../presence/presence-reader.ts';
import type { PresenceMember } from '../presence/presence-rules.ts';
import { REALTIME_ERRORS } from './realtime-errors.ts';

/** Epochs are 16 hex characters (or "" for a channel with no state); anything longer is no epoch. */
export const EPOCH_MAX = 64;
export const HISTORY_QUERY_PARAMS = ['last_n', 'last_ms', 'offset', 'epoch'] as const;

export type HistoryQuery = { window: HistoryWindow } | { cursor: HistoryCursor };

/** A query value as it arrives: text from a URL, or already coerced by a schema validator. */
type QueryValue = unknown;

function intOf(v: QueryValue): number | null {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : null;
  if (typeof v === 'string' && /^\d{1,16}$/.test(v)) {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : null;
  }
  return null;
}

function numberOf(v: QueryValue): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && /^\d+(\.\d+)?([eE][+-]?\d+)?$/.test(v)) {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/** The history query's window or cursor, or the fields that make it invalid. */
export function parseHistoryQuery(
  query: Record<string, QueryValue>,
): HistoryQuery | { fields: FieldError[] } {
  const fields: FieldError[] = [];
  const has = (k: string) => query[k] !== undefined;
  for (const key of Object.keys(query)) {
    if (query[key] === undefined) continue;
    if (!(HISTORY_QUERY_PARAMS as readonly string[]).includes(key))
      fields.push({ path: `query.${key}`, message: 'is not allowed' });
    else if (Array.isArray(query[key])) fields.push({ path: `query.${key}`, message: 'must be given once' });
  }
  if (fields.length > 0) return { fields };

  let lastN: number | null = null;
  if (has('last_n')) {
    lastN = intOf(query.last_n);
    if (lastN === null || lastN < 1 || lastN > HISTORY_LAST_N_MAX)
      fields.push({ path: 'query.last_n', message: `must be an integer from 1 to ${HISTORY_LAST_N_MAX}` });
  }
  let lastMs: number | null = null;
  if (has('last_ms')) {
    lastMs = numberOf(query.last_ms);
    if (lastMs === null || !(lastMs > 0))
      fields.push({ path: 'query.last_ms', message: 'must be a positive number of milliseconds' });
  }
  let offset: number | null = null;
  if (has('offset')) {
    offset = intOf(query.offset);
    if (offset === null || offset < 0)
      fields.push({ path: 'query.offset', message: 'must be an integer >= 0' });
  }
  const epoch = query.epoch;
  if (has('epoch') && (typeof epoch !== 'string' || epoch.length > EPOCH_MAX))
    fields.push({ path: 'query.epoch', message: `must be a string of at most ${EPOCH_MAX} characters` });

  const windows = ['last_n', 'last_ms'].filter(has);
  const cursorParts = ['offset', 'epoch'].filter(has);
  if (cursorParts.length === 1) {
    const missing = has('offset') ? 'epoch' : 'offset';
    fields.push({
      path: `query.${missing}`,
      message:
        'is required with ' +
        (missing === 'epoch' ? 'offset' : 'epoch') +
        ': a cursor is offset and epoch together',
    });
  }
  if (windows.length === 2)
    fields.push({ path: 'query.last_ms', message: 'cannot be given with last_n: give one window' });
  if (windows.length > 0 && cursorParts.length > 0) {
    for (const w of windows)
      fields.push({
        path: `query.${w}`,
        message: 'cannot be given with a cursor (offset, epoch): give exactly one',
      });
  }
  if (windows.length === 0 && cursorParts.length === 0) {
    fields.push({
      path: 'query',
      message: 'needs exactly one of a window (last_n or last_ms) or a cursor (offset and epoch)',
    });
  }
  if (fields.length > 0) return { fields };
  if (lastN !== null) return { window: { lastN } };
  if (lastMs !== null) return { window: { lastMs } };
  return { cursor: { offset: offset!, epoch: epoch as string } };
}

/** The channel path parameter, or 400 naming `params.channel`. */
export function validChannel(channel: unknown): string {
  if (typeof channel !== 'string')
    throw HTTP_ERRORS.validation([{ path: 'params.channel', message: 'is required' }]);
  const problem = channelNameProblem(channel);
  if (problem) throw HTTP_ERRORS.validation([{ path: 'params.channel', message: problem }]);
  return channel;
}

export interface ChannelReadInput {
  productId: string;
  environment: Environment;
  channel: unknown;
}

export interface ChannelReads {
  history(input: ChannelReadInput & { query: Record<string, QueryValue> }): Promise<HistoryAnswer>;
  presence(input: ChannelReadInput): Promise<{ data: PresenceMember[] }>;
  presenceStats(input: ChannelReadInput): Promise<{ members: number; connections: number }>;
}

export interface ChannelReadsDeps {
  history: HistoryReader;
  presence: PresenceReader;
  logger: Logger;
  clock?: Clock;
}

export function createChannelReads(deps: ChannelReadsDeps): ChannelReads {
  const clock = deps.clock ?? systemClock;
  const log = deps.logger.child({ component: 'realtime-reads' });

  async function guarded<T>(what: 'history' | 'presence', run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof ApiError) throw err;
      log.error({ err }, `a ${what} read failed`);
      throw what === 'history' ? REALTIME_ERRORS.historyUnavailable() : REALTIME_ERRORS.presenceUnavailable();
    }
  }

  function presenceInput(input: ChannelReadInput) {
    const channel = validChannel(input.channel);
    return { productId: input.productId, environment: input.environment, channel, nowMs: clock.nowMs() };
  }

  return {
    async history(input) {
      // Both are validated before either refuses, so one answer names every failing field.
      const channelProblem =
        typeof input.channel === 'string' ? channelNameProblem(input.channel) : 'is required';
      const query = parseHistoryQuery(input.query);
      const fields = [
        ...(channelProblem ? [{ path: 'params.channel', message: channelProblem }] : []),
        ...('fields' in query ? query.fields : []),
      ];
      if (fields.length > 0) throw HTTP_ERRORS.validation(fields);
      const channel = input.channel as string;
      const result = await guarded('history', () =>
        deps.history.read({
          productId: input.productId,
          environment: input.environment,
          channel,
          ...(query as HistoryQuery),
          nowMs: clock.nowMs(),
        }),
      );
      if ('refused' in result) throw REALTIME_ERRORS.namespaceNotFound(namespaceOf(channel));
      return result;
    },
    async presence(input) {
      const read = presenceInput(input);
      const result = await guarded('presence', () => deps.presence.roster(read));
      if ('refused' in result) throw refusal(result.refused, read.channel);
      return result;
    },
    async presenceStats(input) {
      const read = presenceInput(input);
      const result = await guarded('presence', () => deps.presence.stats(read));
      if ('refused' in result) throw refusal(result.refused, read.channel);
      return result;
    },
  };
}

function refusal(refused: 'namespace_not_found' | 'presence_disabled', channel: string): ApiError {
  const namespace = namespaceOf(channel);
  return refused === 'namespace_not_found'
    ? REALTIME_ERRORS.namespaceNotFound(namespace)
    : REALTIME_ERRORS.presenceDisabled(namespace);
}
