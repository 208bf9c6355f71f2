// The channel actor's decisions, without I/O: (state, command, now, policy) → (state, effects).
// Offsets are dense from 1 within an epoch; the epoch is chosen when the state is first created.
// Presence is a roster of connections deduplicated by identity; entries past their lifetime are
// dropped before each command. The adapter (channel-actor.ts) persists the state and history
// effects in one transaction, then performs the fan-out effects.
import type { FanOutMessage, PresenceErrorCode, PresenceResult } from '../fanout/fanout.ts';
import { PRESENCE_MAX_MEMBERS, presenceInfoProblem, presenceTtlProblem } from '../presence/presence-rules.ts';
import type { NamespacePolicy } from '../token-request.ts';
import { type ChannelCommand, PRESENCE_EXPIRED_REASON } from './channel-command.ts';
import type { ChannelEntry } from './channel-entry.ts';
import {
  type ChannelState,
  newChannelState,
  type PresenceConnection,
  RECENT_MESSAGE_IDS_MAX,
} from './channel-state.ts';

export interface DecideContext {
  /** The channel's name, as subscribers see it. */
  channel: string;
  nowMs: number;
  /** The namespace's policy; null when the namespace is not registered for the product. */
  policy: NamespacePolicy | null;
  /** The epoch to use if this command creates the channel's state. */
  freshEpoch: string;
}

export type ChannelEffect =
  /** Keep the entry in history (the namespace retains; window > 0). */
  | { type: 'append_history'; entry: ChannelEntry }
  /** Publish on the channel's fan-out channel, in effect order. */
  | { type: 'fan_out'; message: FanOutMessage }
  /** Tell the connection how its presence command went. */
  | { type: 'presence_result'; result: PresenceResult }
  /** A publish that cannot apply now (namespace gone): no offset, logged. */
  | { type: 'publish_refused'; commandId: string; messageId: string; reason: string }
  /** A publish whose message id was already applied (a publisher's retried send). */
  | { type: 'publish_duplicate'; commandId: string; messageId: string };

export interface Decision {
  /** The same object as the input when nothing changed; null only if it was null and stays so. */
  state: ChannelState | null;
  effects: ChannelEffect[];
}

export function decideChannel(
  state: ChannelState | null,
  command: ChannelCommand,
  ctx: DecideContext,
): Decision {
  const effects: ChannelEffect[] = [];
  const current = state === null ? null : expire(state, ctx, effects);
  switch (command.kind) {
    case 'publish':
      return { state: publish(current, command, ctx, effects), effects };
    case 'presence_enter':
      return { state: enter(current, command, ctx, effects), effects };
    case 'presence_update':
      return { state: update(current, command, ctx, effects), effects };
    case 'presence_leave':
      return { state: leave(current, command, ctx, effects), effects };
  }
}

type Command<K extends ChannelCommand['kind']> = Extract<ChannelCommand, { kind: K }>;

function publish(
  state: ChannelState | null,
  cmd: Command<'publish'>,
  ctx: DecideContext,
  effects: ChannelEffect[],
): ChannelState | null {
  if (ctx.policy === null) {
    effects.push({
      type: 'publish_refused',
      commandId: cmd.commandId,
      messageId: cmd.messageId,
      reason: 'the namespace is not registered',
    });
    return state;
  }
  if (state?.recentMessageIds.includes(cmd.messageId)) {
    effects.push({ type: 'publish_duplicate', commandId: cmd.commandId, messageId: cmd.messageId });
    return state;
  }
  const base = state ?? newChannelState(ctx.freshEpoch);
  const entry: ChannelEntry = {
    id: cmd.messageId,
    offset: base.topOffset + 1,
    epoch: base.epoch,
    name: cmd.name,
    payload: cmd.payload,
    publishedAtMs: cmd.issuedAtMs,
  };
  if (ctx.policy.historyWindowSeconds > 0) effects.push({ type: 'append_history', entry });
  effects.push({ type: 'fan_out', message: { type: 'publication', channel: ctx.channel, entry } });
  const recent = [...base.recentMessageIds, cmd.messageId];
  return {
    ...base,
    topOffset: entry.offset,
    recentMessageIds: recent.length > RECENT_MESSAGE_IDS_MAX ? recent.slice(-RECENT_MESSAGE_IDS_MAX) : recent,
  };
}

function refuse(
  effects: ChannelEffect[],
  ctx: DecideContext,
  cmd: { commandId: string; connectionId: string },
  action: PresenceResult['action'],
  code: PresenceErrorCode,
  message: string,
): void {
  effects.push({
    type: 'presence_result',
    result: {
      commandId: cmd.commandId,
      channel: ctx.channel,
      connectionId: cmd.connectionId,
      action,
      error: { code, message },
    },
  });
}

function accept(
  effects: ChannelEffect[],
  ctx: DecideContext,
  cmd: { commandId: string; connectionId: string },
  action: PresenceResult['action'],
): void {
  effects.push({
    type: 'presence_result',
    result: { commandId: cmd.commandId, channel: ctx.channel, connectionId: cmd.connectionId, action },
  });
}

/** Why presence commands other than leave are refused on this namespace, or null. */
function presenceForbidden(policy: NamespacePolicy | null): string | null {
  if (policy === null) return 'the namespace is not registered';
  if (!policy.presence) return 'presence is not enabled for the namespace';
  return null;
}

function presenceEvent(
  ctx: DecideContext,
  action: 'join' | 'update' | 'leave',
  identity: string,
  connections: number,
  infoJson: string | null,
  reason?: string,
): ChannelEffect {
  return {
    type: 'fan_out',
    message: {
      type: 'presence',
      channel: ctx.channel,
      action,
      identity,
      connections,
      infoJson,
      ...(reason !== undefined ? { reason } : {}),
    },
  };
}

function connectionsOf(roster: ReadonlyMap<string, PresenceConnection>, identity: string): number {
  let n = 0;
  for (const c of roster.values()) if (c.identity === identity) n++;
  return n;
}

function memberCount(roster: ReadonlyMap<string, PresenceConnection>): number {
  return new Set([...roster.values()].map((c) => c.identity)).size;
}

/** Sets the identity's info on every one of its connections (info is per member). */
function setInfo(roster: Map<string, PresenceConnection>, identity: string, infoJson: string | null): void {
  for (const [id, c] of roster) {
    if (c.identity === identity && c.infoJson !== infoJson) roster.set(id, { ...c, infoJson });
  }
}

/** After a connection left: `leave` if it was the identity's last one, else `update`. */
function departure(
  ctx: DecideContext,
  roster: ReadonlyMap<string, PresenceConnection>,
  gone: PresenceConnection,
  reason: string,
): ChannelEffect {
  const left = connectionsOf(roster, gone.identity);
  return left === 0
    ? presenceEvent(ctx, 'leave', gone.identity, 0, gone.infoJson, reason)
    : presenceEvent(ctx, 'update', gone.identity, left, gone.infoJson);
}

/** Drops entries whose lifetime ended at or before now; one event per affected member. */
function expire(state: ChannelState, ctx: DecideContext, effects: ChannelEffect[]): ChannelState {
  const expired = [...state.connections.values()].filter((c) => c.expiresAtMs <= ctx.nowMs);
  if (expired.length === 0) return state;
  const roster = new Map(state.connections);
  for (const c of expired) roster.delete(c.connectionId);
  const seen = new Set<string>();
  for (const c of expired) {
    if (seen.has(c.identity)) continue;
    seen.add(c.identity);
    effects.push(departure(ctx, roster, c, PRESENCE_EXPIRED_REASON));
  }
  return { ...state, connections: roster };
}

function enter(
  state: ChannelState | null,
  cmd: Command<'presence_enter'>,
  ctx: DecideContext,
  effects: ChannelEffect[],
): ChannelState | null {
  const forbidden = presenceForbidden(ctx.policy);
  if (forbidden) {
    refuse(effects, ctx, cmd, 'enter', 'forbidden', forbidden);
    return state;
  }
  const problem =
    (cmd.identity === '' ? 'presence needs an identity' : null) ??
    (cmd.connectionId === '' ? 'presence needs a connection id' : null) ??
    presenceTtlProblem(cmd.ttlSeconds) ??
    presenceInfoProblem(cmd.infoJson);
  if (problem) {
    refuse(effects, ctx, cmd, 'enter', 'invalid', problem);
    return state;
  }
  const base = state ?? newChannelState(ctx.freshEpoch);
  const existing = base.connections.get(cmd.connectionId);
  if (existing && existing.identity !== cmd.identity) {
    refuse(effects, ctx, cmd, 'enter', 'invalid', 'the connection is in the roster as another identity');
    return state;
  }
  if (existing && cmd.keepAlive) {
    // A live connection's refresh: only its lifetime moves. Its member's info may have been
    // changed by another connection since the gateway last sent it, so the info is kept.
    // Nobody waits for a keep-alive's answer: none is published.
    const roster = new Map(base.connections);
    roster.set(cmd.connectionId, { ...existing, expiresAtMs: ctx.nowMs + cmd.ttlSeconds * 1000 });
    return { ...base, connections: roster };
  }
  const before = connectionsOf(base.connections, cmd.identity);
  if (before === 0 && memberCount(base.connections) >= PRESENCE_MAX_MEMBERS) {
    refuse(effects, ctx, cmd, 'enter', 'full', `the roster is full (${PRESENCE_MAX_MEMBERS} members)`);
    return state;
  }
  const previousInfo = [...base.connections.values()].find((c) => c.identity === cmd.identity)?.infoJson;
  const roster = new Map(base.connections);
  roster.set(cmd.connectionId, {
    connectionId: cmd.connectionId,
    identity: cmd.identity,
    gatewayId: cmd.gatewayId,
    expiresAtMs: ctx.nowMs + cmd.ttlSeconds * 1000,
    infoJson: cmd.infoJson,
  });
  setInfo(roster, cmd.identity, cmd.infoJson);
  const after = connectionsOf(roster, cmd.identity);
  if (before === 0) effects.push(presenceEvent(ctx, 'join', cmd.identity, after, cmd.infoJson));
  else if (after !== before || previousInfo !== cmd.infoJson) {
    effects.push(presenceEvent(ctx, 'update', cmd.identity, after, cmd.infoJson));
  }
  accept(effects, ctx, cmd, 'enter');
  return { ...base, connections: roster };
}

function update(
  state: ChannelState | null,
  cmd: Command<'presence_update'>,
  ctx: DecideContext,
  effects: ChannelEffect[],
): ChannelState | null {
  const forbidden = presenceForbidden(ctx.policy);
  if (forbidden) {
    refuse(effects, ctx, cmd, 'update', 'forbidden', forbidden);
    return state;
  }
  const existing = state?.connections.get(cmd.connectionId);
  const problem = existing ? presenceInfoProblem(cmd.infoJson) : 'the connection is not in the roster';
  if (!state || !existing || problem) {
    refuse(effects, ctx, cmd, 'update', 'invalid', problem ?? 'the connection is not in the roster');
    return state;
  }
  let next = state;
  if (existing.infoJson !== cmd.infoJson) {
    const roster = new Map(state.connections);
    setInfo(roster, existing.identity, cmd.infoJson);
    const connections = connectionsOf(roster, existing.identity);
    effects.push(presenceEvent(ctx, 'update', existing.identity, connections, cmd.infoJson));
    next = { ...state, connections: roster };
  }
  accept(effects, ctx, cmd, 'update');
  return next;
}

function leave(
  state: ChannelState | null,
  cmd: Command<'presence_leave'>,
  ctx: DecideContext,
  effects: ChannelEffect[],
): ChannelState | null {
  // A sweep's leave only wakes the actor: expired entries were dropped above, and an entry
  // refreshed since the sweep looked is kept. Nobody waits for its result.
  if (cmd.reason === PRESENCE_EXPIRED_REASON) return state;
  const existing = state?.connections.get(cmd.connectionId);
  if (!state || !existing) {
    accept(effects, ctx, cmd, 'leave');
    return state;
  }
  const roster = new Map(state.connections);
  roster.delete(cmd.connectionId);
  effects.push(departure(ctx, roster, existing, cmd.reason));
  accept(effects, ctx, cmd, 'leave');
  return { ...state, connections: roster };
}
