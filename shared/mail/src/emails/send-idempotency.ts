// Idempotency-Keys of sends (decisions.md "Mail (interfaces)"): per product, shared by the edge
// and mail_email_send, kept 5 minutes, compared on the canonical JSON of the body. Kept in
// PostgreSQL beside the email row, because the claim and the email are written in one
// transaction: a key never names an email that does not exist, and a refused request (4xx, or
// a 503 whose email was withdrawn) leaves no key behind.
//   absent or expired          → the request proceeds and claims the key with its email
//   same body, completed       → the first id again (Idempotent-Replayed)
//   same body, in progress     → 409 idempotency_key_in_use, unless the claim is older than the
//                                lease: its request died after committing, and the orphan sweep
//                                hands its email over, so it answers as completed
//   another body               → 409 idempotency_key_mismatch
import { sha256Hex } from '@lattice/core';
import { canonicalJson } from '@lattice/http';
import type { DbExecutor } from '@lattice/store';
import { MAIL_ERRORS } from '../mail-errors.ts';

export const SEND_IDEMPOTENCY_TTL_MS = 5 * 60_000;
/** Longer than any accept takes (its produce times out after 10 s). */
export const SEND_IDEMPOTENCY_LEASE_MS = 15_000;

export interface IdempotencyKeyRef {
  keyHash: string;
  bodyHash: string;
}

export function idempotencyKeyRef(key: string, body: unknown): IdempotencyKeyRef {
  return { keyHash: sha256Hex(key), bodyHash: sha256Hex(canonicalJson(body)) };
}

interface ClaimRow {
  body_hash: string;
  email_id: string;
  completed: boolean;
  expires_at: Date;
}

/**
 * What an earlier request with this key decided: the id to answer again, or undefined when the
 * key is free. Throws the 409s.
 */
export async function replayedEmailId(
  db: DbExecutor,
  productId: string,
  ref: IdempotencyKeyRef,
  nowMs: number,
): Promise<string | undefined> {
  const row = (await db('mail_idempotency_keys')
    .where({ product_id: productId, key_hash: ref.keyHash })
    .first('body_hash', 'email_id', 'completed', 'expires_at')) as ClaimRow | undefined;
  if (!row || row.expires_at.getTime() <= nowMs) return undefined;
  if (row.body_hash !== ref.bodyHash) throw MAIL_ERRORS.idempotencyKeyMismatch();
  if (row.completed) return row.email_id;
  const claimedAtMs = row.expires_at.getTime() - SEND_IDEMPOTENCY_TTL_MS;
  if (nowMs - claimedAtMs < SEND_IDEMPOTENCY_LEASE_MS) throw MAIL_ERRORS.idempotencyKeyInUse();
  return row.email_id;
}

/**
 * Claims the key for `emailId` inside the accept transaction. False when another request
 * claimed it first (the caller re-reads with replayedEmailId after its transaction).
 */
export async function claimKey(
  trx: DbExecutor,
  productId: string,
  ref: IdempotencyKeyRef,
  emailId: string,
  nowMs: number,
): Promise<boolean> {
  // An expired claim is replaced; a live one is left alone (the insert then does nothing).
  await trx('mail_idempotency_keys')
    .where({ product_id: productId, key_hash: ref.keyHash })
    .where('expires_at', '<=', new Date(nowMs))
    .delete();
  const inserted = await trx('mail_idempotency_keys')
    .insert({
      product_id: productId,
      key_hash: ref.keyHash,
      body_hash: ref.bodyHash,
      email_id: emailId,
      completed: false,
      expires_at: new Date(nowMs + SEND_IDEMPOTENCY_TTL_MS),
    })
    .onConflict(['product_id', 'key_hash'])
    .ignore()
    .returning('email_id');
  return inserted.length === 1;
}

export async function completeKey(db: DbExecutor, productId: string, ref: IdempotencyKeyRef): Promise<void> {
  await db('mail_idempotency_keys')
    .where({ product_id: productId, key_hash: ref.keyHash })
    .update({ completed: true });
}
