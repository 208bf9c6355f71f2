// The one way to create a key of each kind: mint, persist only the hash and visible part, and
// hand the plaintext back once. Nothing else ever sees the plaintext.
import type { Environment } from '@lattice/core';
import { KEY_PREFIXES, mintKey } from './key-material.ts';
import type { MailKeyRecord, MailKeyRepository, MailKeyScope } from './mail-key-repository.ts';
import type { PublicKeyRecord, PublicKeyRepository } from './public-key-repository.ts';
import type { RealtimeKeyRecord, RealtimeKeyRepository } from './realtime-key-repository.ts';
import type { PublicKeyScope } from './scope.ts';

export interface IssuedKey<R> {
  /** The plaintext; return it to the caller once and never store or log it. */
  key: string;
  record: R;
}

export async function issuePublicKey(
  repo: PublicKeyRepository,
  input: {
    productId: string;
    environment: Environment;
    name: string;
    scope: PublicKeyScope;
    createdBy: string | null;
  },
): Promise<IssuedKey<PublicKeyRecord>> {
  const minted = mintKey(KEY_PREFIXES.publicKey);
  const record = await repo.create({
    ...input,
    prefix: KEY_PREFIXES.publicKey,
    hash: minted.hash,
    visible: minted.visible,
  });
  return { key: minted.secret, record };
}

/** Undefined when `domainId` is not a mail domain of the product. */
export async function issueMailKey(
  repo: MailKeyRepository,
  input: {
    productId: string;
    name: string;
    scope: MailKeyScope;
    domainId: string | null;
    createdBy: string | null;
  },
): Promise<IssuedKey<MailKeyRecord> | undefined> {
  const minted = mintKey(KEY_PREFIXES.mailKey);
  const record = await repo.create({ ...input, hash: minted.hash, visible: minted.visible });
  return record ? { key: minted.secret, record } : undefined;
}

export async function issueRealtimeKey(
  repo: RealtimeKeyRepository,
  input: { productId: string; name: string | null; createdBy: string | null },
): Promise<IssuedKey<RealtimeKeyRecord>> {
  const minted = mintKey(KEY_PREFIXES.realtimeKey);
  const record = await repo.create({ ...input, hash: minted.hash, visible: minted.visible });
  return { key: minted.secret, record };
}
