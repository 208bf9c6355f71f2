// Presence reads (decisions.md): the roster `{data: [{identity, connections, info}]}` and the
// stats `{members, connections}`. Entries past their lifetime are left out even before the
// channel actor or the sweep removes them.
import type { Environment } from '@lattice/core';
import type { Knex } from 'knex';
import type { NamespacePolicyLookup } from '../channel/policy-cache.ts';
import { namespaceOf } from '../names.ts';
import { membersOf, type PresenceMember } from './presence-rules.ts';

export interface PresenceReadInput {
  productId: string;
  environment: Environment;
  channel: string;
  nowMs: number;
}

/** `namespace_not_found` → 404, `presence_disabled` → 403. */
export type PresenceRefusal = { refused: 'namespace_not_found' | 'presence_disabled' };
export type PresenceRosterResult = { data: PresenceMember[] } | PresenceRefusal;
export type PresenceStatsResult = { members: number; connections: number } | PresenceRefusal;

export interface PresenceReader {
  roster(input: PresenceReadInput): Promise<PresenceRosterResult>;
  stats(input: PresenceReadInput): Promise<PresenceStatsResult>;
}

export function createPresenceReader(opts: { db: Knex; policies: NamespacePolicyLookup }): PresenceReader {
  const { db } = opts;
  async function refusal(input: PresenceReadInput): Promise<PresenceRefusal | null> {
    const policy = await opts.policies.get(input.productId, namespaceOf(input.channel));
    if (policy === null) return { refused: 'namespace_not_found' };
    if (!policy.presence) return { refused: 'presence_disabled' };
    return null;
  }
  const live = (input: PresenceReadInput) =>
    db('channel_presence')
      .where({ product_id: input.productId, environment: input.environment, channel: input.channel })
      .andWhere('expires_at', '>', new Date(input.nowMs));

  return {
    async roster(input) {
      const refused = await refusal(input);
      if (refused) return refused;
      const rows = (await live(input)
        .orderBy(['identity', 'connection_id'])
        .select('identity', 'info_json')) as Array<{ identity: string; info_json: string | null }>;
      return { data: membersOf(rows.map((r) => ({ identity: r.identity, infoJson: r.info_json }))) };
    },
    async stats(input) {
      const refused = await refusal(input);
      if (refused) return refused;
      const row = (await live(input).first(
        db.raw('count(distinct identity) as members'),
        db.raw('count(*) as connections'),
      )) as { members: string; connections: string } | undefined;
      return { members: Number(row?.members ?? 0), connections: Number(row?.connections ?? 0) };
    },
  };
}
