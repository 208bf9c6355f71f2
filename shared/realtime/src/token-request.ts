// Delegated token requests, validated against every bound of the spec by their JSON Schema
// (schemas/http realtime-token-request; the constants below say the same numbers), then
// narrowed by namespace policy. Narrowing only removes: an unregistered namespace drops the channel; presence needs
// presence enabled; publish needs client events; history needs a namespace that retains.
import { namespaceOf } from './names.ts';

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

/** The token request body as its schema (schemas/http realtime-token-request) admits it. */
export interface TokenRequestBody {
  subject: string;
  channels: ChannelGrant[];
  /** The schema fills in the default (TTL_DEFAULT_SECONDS) when absent. */
  ttlSeconds?: number;
}

export function tokenRequestOf(body: TokenRequestBody): TokenRequest {
  return {
    subject: body.subject,
    channels: body.channels,
    ttlSeconds: body.ttlSeconds ?? TTL_DEFAULT_SECONDS,
  };
}

/**
 * The first channel named a second time, with the index of its first mention, or null. A request
 * names each channel once (docs/realtime.md "The gateway"): two entries would leave one of them unsaid.
 */
export function repeatedChannel(channels: readonly ChannelGrant[]): { index: number; first: number } | null {
  const seen = new Map<string, number>();
  for (const [index, c] of channels.entries()) {
    const first = seen.get(c.name);
    if (first !== undefined) return { index, first };
    seen.set(c.name, index);
  }
  return null;
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
