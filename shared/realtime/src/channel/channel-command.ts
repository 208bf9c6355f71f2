// The channel command record (schemas/avro/channel-command.avsc, `lattice.realtime.ChannelCommand`)
// as TypeScript, and its translation into the commands the pure channel logic decides on.
// Publishers (edge, management) produce Publish; gateways produce the presence commands; the
// presence sweep produces PresenceLeave with reason `expired`.
import type { Environment } from '@lattice/core';
import type { PayloadRef } from '../payload/payload-store.ts';
import type { ChannelId } from './channel-id.ts';

export interface PayloadRefRecord {
  bucket_key: string;
  size: number;
  content_type: string | null;
}

export interface PublishBody {
  message_id: string;
  name: string | null;
  /** Inline payload as JSON text; exactly one of data_json and ref is set. */
  data_json: string | null;
  ref: PayloadRefRecord | null;
  publisher: string | null;
  idempotency_key: string | null;
}

export interface PresenceEnterBody {
  connection_id: string;
  identity: string;
  info_json: string | null;
  ttl_seconds: number;
  gateway_id: string;
  /** A gateway's refresh of a live connection's entry (version 2 of the record; false before). */
  keep_alive: boolean;
}

export interface PresenceUpdateBody {
  connection_id: string;
  info_json: string | null;
}

export interface PresenceLeaveBody {
  connection_id: string;
  reason: string;
}

/** Avro's wrapped union form: the branch is named in the data. */
export type ChannelCommandBody =
  | { 'lattice.realtime.Publish': PublishBody }
  | { 'lattice.realtime.PresenceEnter': PresenceEnterBody }
  | { 'lattice.realtime.PresenceUpdate': PresenceUpdateBody }
  | { 'lattice.realtime.PresenceLeave': PresenceLeaveBody };

export interface ChannelCommandRecord {
  command_id: string;
  product_id: string;
  environment: Environment;
  channel: string;
  issued_at_ms: number;
  body: ChannelCommandBody;
}

/** The reason a presence sweep gives: the leave applies only if the entry really expired. */
export const PRESENCE_EXPIRED_REASON = 'expired';

export type ChannelPayload = { kind: 'data'; json: string } | { kind: 'ref'; ref: PayloadRef };

export type ChannelCommand =
  | {
      kind: 'publish';
      commandId: string;
      messageId: string;
      name: string | null;
      payload: ChannelPayload;
      issuedAtMs: number;
    }
  | {
      kind: 'presence_enter';
      commandId: string;
      connectionId: string;
      identity: string;
      infoJson: string | null;
      ttlSeconds: number;
      gatewayId: string;
      /** Extends the entry's lifetime only; enters as given when the entry is gone. */
      keepAlive: boolean;
    }
  | { kind: 'presence_update'; commandId: string; connectionId: string; infoJson: string | null }
  | { kind: 'presence_leave'; commandId: string; connectionId: string; reason: string };

export function channelIdOf(record: ChannelCommandRecord): ChannelId {
  return { productId: record.product_id, environment: record.environment, channel: record.channel };
}

function refOf(r: PayloadRefRecord): PayloadRef {
  return r.content_type === null
    ? { bucket_key: r.bucket_key, size: r.size }
    : { bucket_key: r.bucket_key, size: r.size, content_type: r.content_type };
}

/** The command a record carries, or why it can never apply (a poison record). */
export function toChannelCommand(record: ChannelCommandRecord): ChannelCommand | { invalid: string } {
  const body = record.body as Partial<
    Record<
      | 'lattice.realtime.Publish'
      | 'lattice.realtime.PresenceEnter'
      | 'lattice.realtime.PresenceUpdate'
      | 'lattice.realtime.PresenceLeave',
      unknown
    >
  >;
  const commandId = record.command_id;
  const publish = body['lattice.realtime.Publish'] as PublishBody | undefined;
  if (publish) {
    if ((publish.data_json === null) === (publish.ref === null)) {
      return { invalid: 'a publish carries exactly one of data_json and ref' };
    }
    return {
      kind: 'publish',
      commandId,
      messageId: publish.message_id,
      name: publish.name,
      payload:
        publish.data_json !== null
          ? { kind: 'data', json: publish.data_json }
          : { kind: 'ref', ref: refOf(publish.ref!) },
      issuedAtMs: record.issued_at_ms,
    };
  }
  const enter = body['lattice.realtime.PresenceEnter'] as PresenceEnterBody | undefined;
  if (enter) {
    return {
      kind: 'presence_enter',
      commandId,
      connectionId: enter.connection_id,
      identity: enter.identity,
      infoJson: enter.info_json,
      ttlSeconds: enter.ttl_seconds,
      gatewayId: enter.gateway_id,
      keepAlive: enter.keep_alive,
    };
  }
  const update = body['lattice.realtime.PresenceUpdate'] as PresenceUpdateBody | undefined;
  if (update) {
    return {
      kind: 'presence_update',
      commandId,
      connectionId: update.connection_id,
      infoJson: update.info_json,
    };
  }
  const leave = body['lattice.realtime.PresenceLeave'] as PresenceLeaveBody | undefined;
  if (leave) {
    return { kind: 'presence_leave', commandId, connectionId: leave.connection_id, reason: leave.reason };
  }
  return { invalid: 'unknown command body' };
}

export interface PublishCommandInput {
  id: ChannelId;
  commandId: string;
  messageId: string;
  name?: string | null;
  /** JSON text of the inline payload, or the stored payload's reference. */
  data: { json: string } | { ref: PayloadRef };
  publisher?: string | null;
  idempotencyKey?: string | null;
  issuedAtMs: number;
}

/** A Publish record for publishers (edge, management): key with `channelCommandKey(input.id)`. */
export function publishCommandRecord(input: PublishCommandInput): ChannelCommandRecord {
  const ref = 'ref' in input.data ? input.data.ref : null;
  return {
    command_id: input.commandId,
    product_id: input.id.productId,
    environment: input.id.environment,
    channel: input.id.channel,
    issued_at_ms: input.issuedAtMs,
    body: {
      'lattice.realtime.Publish': {
        message_id: input.messageId,
        name: input.name ?? null,
        data_json: 'json' in input.data ? input.data.json : null,
        ref: ref
          ? { bucket_key: ref.bucket_key, size: ref.size, content_type: ref.content_type ?? null }
          : null,
        publisher: input.publisher ?? null,
        idempotency_key: input.idempotencyKey ?? null,
      },
    },
  };
}

export type PresenceCommandInput =
  | {
      action: 'enter';
      connectionId: string;
      identity: string;
      infoJson?: string | null;
      ttlSeconds: number;
      gatewayId: string;
      /** Default false. */
      keepAlive?: boolean;
    }
  | { action: 'update'; connectionId: string; infoJson: string | null }
  | { action: 'leave'; connectionId: string; reason: string };

/** A presence record for gateways (and the presence sweep). */
export function presenceCommandRecord(
  id: ChannelId,
  commandId: string,
  issuedAtMs: number,
  input: PresenceCommandInput,
): ChannelCommandRecord {
  let body: ChannelCommandBody;
  if (input.action === 'enter') {
    body = {
      'lattice.realtime.PresenceEnter': {
        connection_id: input.connectionId,
        identity: input.identity,
        info_json: input.infoJson ?? null,
        ttl_seconds: input.ttlSeconds,
        gateway_id: input.gatewayId,
        keep_alive: input.keepAlive ?? false,
      },
    };
  } else if (input.action === 'update') {
    body = {
      'lattice.realtime.PresenceUpdate': { connection_id: input.connectionId, info_json: input.infoJson },
    };
  } else {
    body = { 'lattice.realtime.PresenceLeave': { connection_id: input.connectionId, reason: input.reason } };
  }
  return {
    command_id: commandId,
    product_id: id.productId,
    environment: id.environment,
    channel: id.channel,
    issued_at_ms: issuedAtMs,
    body,
  };
}
