// Delegated token requests: validation of every bound in the spec, then narrowing by namespace
// policy. Narrowing only removes: an unregistered namespace drops the channel; presence needs
// presence enabled; publish needs client events; history needs a namespace that retains.
import type { FieldError } from '@lattice/core';
import { channelNameProblem, namespaceOf } from './names.ts';

export const TOKEN_OPS = ['subscribe', 'publish', 'presence', 'history'] as const;
export type TokenOp = (typeof TOKEN_OPS)[number];

export const SUBJECT_MAX = 128;
export const CHANNELS_MAX = 32;
export const TTL_MIN_SECONDS = 60;
export const TTL_MAX_SECONDS = 3600;
export const TTL_DEFAULT_SECONDS = 3600;

export interface ChannelGrant {
  name: string;
  ops: TokenOp[];
}

export interface TokenRequest {
  subject: string;
  channels: ChannelGrant[];
  ttlSeconds: number;
}

export interface NamespacePolicy {
  presence: boolean;
  clientEvents: boolean;
  historyWindowSeconds: number;
  archiveDays: number;
}

const SUBJECT_RE = /^[a-zA-Z0-9._-]+$/;

export function parseTokenRequest(body: unknown): { request: TokenRequest } | { fields: FieldError[] } {
  const fields: FieldError[] = [];
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { fields: [{ path: 'body', message: 'must be a JSON object' }] };
  }
  for (const key of Object.keys(b)) {
    if (!['subject', 'channels', 'ttlSeconds'].includes(key))
      fields.push({ path: `body.${key}`, message: 'is not a known field' });
  }
  const subject = b.subject;
  if (typeof subject !== 'string')
    fields.push({ path: 'body.subject', message: 'is required and must be a string' });
  else if (subject.length < 1 || subject.length > SUBJECT_MAX)
    fields.push({ path: 'body.subject', message: `must be 1 to ${SUBJECT_MAX} characters` });
  else if (!SUBJECT_RE.test(subject))
    fields.push({ path: 'body.subject', message: 'may contain only letters, digits and . _ - (no colons)' });

  const channels: ChannelGrant[] = [];
  if (!Array.isArray(b.channels))
    fields.push({ path: 'body.channels', message: 'is required and must be an array' });
  else if (b.channels.length < 1 || b.channels.length > CHANNELS_MAX) {
    fields.push({ path: 'body.channels', message: `must have 1 to ${CHANNELS_MAX} entries` });
  } else {
    for (const [i, raw] of (b.channels as unknown[]).entries()) {
      const at = `body.channels[${i}]`;
      const c = raw as Record<string, unknown> | null;
      if (!c || typeof c !== 'object' || Array.isArray(c)) {
        fields.push({ path: at, message: 'must be an object' });
        continue;
      }
      const extra = Object.keys(c).filter((k) => k !== 'name' && k !== 'ops');
      for (const k of extra) fields.push({ path: `${at}.${k}`, message: 'is not a known field' });
      if (typeof c.name !== 'string')
        fields.push({ path: `${at}.name`, message: 'is required and must be a string' });
      else if (c.name.includes('*'))
        fields.push({ path: `${at}.name`, message: 'must be a concrete channel name (no wildcards)' });
      else {
        const problem = channelNameProblem(c.name);
        if (problem) fields.push({ path: `${at}.name`, message: problem });
      }
      const ops = c.ops;
      if (!Array.isArray(ops) || ops.length < 1 || ops.length > TOKEN_OPS.length) {
        fields.push({ path: `${at}.ops`, message: `must list 1 to ${TOKEN_OPS.length} operations` });
      } else if (ops.some((op) => !(TOKEN_OPS as readonly unknown[]).includes(op))) {
        fields.push({ path: `${at}.ops`, message: `may contain only ${TOKEN_OPS.join(', ')}` });
      } else if (new Set(ops).size !== ops.length) {
        fields.push({ path: `${at}.ops`, message: 'must not repeat an operation' });
      } else if (typeof c.name === 'string') {
        channels.push({ name: c.name, ops: ops as TokenOp[] });
      }
    }
  }

  let ttlSeconds = TTL_DEFAULT_SECONDS;
  if (b.ttlSeconds !== undefined) {
    if (
      !Number.isInteger(b.ttlSeconds) ||
      (b.ttlSeconds as number) < TTL_MIN_SECONDS ||
      (b.ttlSeconds as number) > TTL_MAX_SECONDS
    ) {
      fields.push({
        path: 'body.ttlSeconds',
        message: `must be an integer from ${TTL_MIN_SECONDS} to ${TTL_MAX_SECONDS}`,
      });
    } else ttlSeconds = b.ttlSeconds as number;
  }
  if (fields.length > 0) return { fields };
  return { request: { subject: subject as string, channels, ttlSeconds } };
}

/** What namespace policy leaves of the requested grants; channels left with no operation go. */
export function narrowGrants(
  channels: ChannelGrant[],
  policyOf: (namespace: string) => NamespacePolicy | undefined,
): ChannelGrant[] {
  const narrowed: ChannelGrant[] = [];
  for (const c of channels) {
    const policy = policyOf(namespaceOf(c.name));
    if (!policy) continue;
    const ops = c.ops.filter(
      (op) =>
        (op !== 'presence' || policy.presence) &&
        (op !== 'publish' || policy.clientEvents) &&
        (op !== 'history' || policy.historyWindowSeconds > 0),
    );
    if (ops.length > 0) narrowed.push({ name: c.name, ops });
  }
  return narrowed;
}
