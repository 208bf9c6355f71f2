// Area keys on the management API: mail keys (`lmk_`, the mail area) and realtime keys (`rtk_`,
// the realtime area). Looked up by SHA-256, then confirmed in constant time. A deleted key is
// unknown here (401 invalid_token) even while an imported copy of it keeps working on the
// public edge: the two records are revoked independently.
import { constantTimeEqual, sha256Hex } from '@lattice/core';
import type { Principal } from '@lattice/http';
import { KEY_PREFIXES, type MailKeyRepository, type RealtimeKeyRepository } from '@lattice/keys';
import type { CredentialResolver } from './credential-resolver.ts';

interface StoredKey {
  id: string;
  productId: string;
  hash: string;
}

function areaKeyResolver<K extends StoredKey>(opts: {
  prefix: string;
  find: (hash: string) => Promise<K | undefined>;
  principal: (key: K) => Omit<Principal, 'productId' | 'credentialId' | 'memberId' | 'role'>;
}): CredentialResolver {
  return {
    prefix: opts.prefix,
    async resolve(token) {
      const hash = sha256Hex(token);
      const key = await opts.find(hash);
      if (!key || !constantTimeEqual(key.hash, hash)) return null;
      return {
        productId: key.productId,
        credentialId: key.id,
        memberId: null,
        role: null,
        ...opts.principal(key),
      };
    },
  };
}

export function createMailKeyResolver(deps: { keys: MailKeyRepository }): CredentialResolver {
  return areaKeyResolver({
    prefix: KEY_PREFIXES.mailKey,
    find: (hash) => deps.keys.findActiveByHash(hash),
    // full_access reaches the whole mail area; sending_access only routes that name it.
    principal: (key) => ({
      credentialKind: 'mail_key',
      area: 'mail',
      domainLock: key.domainId,
      ...(key.scope === 'full_access' ? {} : { keyScope: key.scope }),
    }),
  });
}

export function createRealtimeKeyResolver(deps: { keys: RealtimeKeyRepository }): CredentialResolver {
  return areaKeyResolver({
    prefix: KEY_PREFIXES.realtimeKey,
    find: (hash) => deps.keys.findActiveByHash(hash),
    principal: () => ({ credentialKind: 'realtime_key', area: 'realtime' }),
  });
}
