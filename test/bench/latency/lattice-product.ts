// The product a Lattice arm publishes for, set up as an integrator sets one up: bootstrapped (an
// owner token), then through the management API a `bench` namespace (an hour of history, no
// presence, no client events) and a realtime public key (`lpk_`) for its backend. Subscribers
// get delegated tokens from the public edge's `POST /{product}/realtime/tokens/issue`, as an
// integrator's backend asks for them (docs/realtime-protocol.md "Connecting").
import { createLogger } from '@lattice/core';
import { bootstrapProduct, createDb } from '@lattice/store';
import { pool } from '../support/http-load.ts';

export interface LatticeProduct {
  productId: string;
  publicKey: string;
  /** The owner's member token (the management API's credential). */
  ownerToken: string;
}

async function call(url: string, token: string, method: string, body: unknown) {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** A fresh product with the `bench` namespace and a realtime public key the edge already knows. */
export async function latticeProduct(
  databaseUrl: string,
  name: string,
  managementUrl: string,
  edgeUrl: string,
): Promise<LatticeProduct> {
  const db = createDb({ databaseUrl, logger: createLogger({ name: 'bench-latency', level: 'error' }) });
  let made: Awaited<ReturnType<typeof bootstrapProduct>>;
  try {
    made = await bootstrapProduct(db, { name });
  } finally {
    await db.destroy();
  }
  const owner = made.owner_token;
  await call(`${managementUrl}/realtime/namespaces/bench`, owner, 'PUT', {
    presence: false,
    client_events: false,
    history_window_seconds: 3600,
    archive_days: 0,
  });
  const key = await call(`${managementUrl}/organization/public-keys`, owner, 'POST', {
    name: 'bench latency',
    scope: { kind: 'toolkit', toolkit: 'realtime' },
  });
  const publicKey = String(key.key);
  // The edge learns of a new key by its change notification or its next snapshot refresh: an
  // empty publish answers 401 until then, 400 (the body) after.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await fetch(`${edgeUrl}/${made.product_id}/realtime/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${publicKey}`, 'content-type': 'application/json' },
      body: '{}',
    });
    await res.arrayBuffer();
    if (res.status !== 401 && res.status !== 503) break;
    if (Date.now() > deadline) throw new Error(`the edge did not learn the product's key: ${res.status}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { productId: made.product_id, publicKey, ownerToken: owner };
}

/** A token per channel granting `subscribe` on it, minted by the edge for the product. */
export async function mintTokens(
  edgeUrl: string,
  product: LatticeProduct,
  channels: string[],
): Promise<Map<string, string>> {
  const tokens = new Map<string, string>();
  await pool(channels.length, 10, async (i) => {
    const channel = channels[i]!;
    const answer = await call(
      `${edgeUrl}/${product.productId}/realtime/tokens/issue`,
      product.publicKey,
      'POST',
      {
        subject: 'bench',
        channels: [{ name: channel, ops: ['subscribe'] }],
        ttlSeconds: 3600,
      },
    );
    tokens.set(channel, String(answer.token));
  });
  return tokens;
}
