// Token signing keys live in PostgreSQL so every role of a deployment (edge and management sign,
// gateways verify) shares them without configuration. One active key per environment is created
// on first use; retired keys keep verifying tokens until they expire.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Environment } from '@lattice/core';
import type { DbExecutor } from '@lattice/store';
import type { SigningKey } from './realtime-token.ts';

export interface SigningKeyStore {
  /** The environment's active key, created when there is none. */
  active(environment: Environment): Promise<SigningKey>;
  /** Any key of the environment by kid, active or retired. */
  byKid(environment: Environment, kid: string): Promise<SigningKey | undefined>;
}

export function createPostgresSigningKeyStore(db: DbExecutor): SigningKeyStore {
  const cache = new Map<string, SigningKey>();
  return {
    async active(environment) {
      const existing = await db('realtime_signing_keys')
        .where({ environment })
        .whereNull('retired_at')
        .first();
      if (existing) return { kid: existing.kid, secret: existing.secret };
      // Two roles starting at once both try; the partial unique index lets exactly one win.
      await db('realtime_signing_keys')
        .insert({
          kid: `${environment}-${randomUUID()}`,
          environment,
          secret: randomBytes(32).toString('base64url'),
        })
        .onConflict(db.raw('(environment) where retired_at is null'))
        .ignore();
      const row = await db('realtime_signing_keys').where({ environment }).whereNull('retired_at').first();
      return { kid: row.kid, secret: row.secret };
    },
    async byKid(environment, kid) {
      const cached = cache.get(`${environment}/${kid}`);
      if (cached) return cached;
      const row = await db('realtime_signing_keys').where({ environment, kid }).first();
      if (!row) return undefined;
      const key = { kid: row.kid, secret: row.secret };
      cache.set(`${environment}/${kid}`, key);
      return key;
    },
  };
}
