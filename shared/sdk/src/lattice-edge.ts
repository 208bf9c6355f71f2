// `new LatticeEdge({ publicKey, productId, baseUrl })`: the public edge's keyed operations
// (shared/sdk/README.md), named as the management API's once `public_` is
// dropped: `edge.realtime.token.issue(args)`. Requests go to `{baseUrl}/{productId}/{toolkit}/…`
// with the public key as a Bearer credential.
import { buildApi } from './api-builder.ts';
import type { LatticeEdgeApi } from './generated/edge-api.ts';
import { EDGE_OPERATIONS } from './generated/edge-operations.ts';
import { edgeMethodPath } from './naming.ts';
import type { RetryOptions } from './retry-policy.ts';
import { createTransport } from './transport.ts';

export const DEFAULT_EDGE_URL = 'http://127.0.0.1:4001';

export interface LatticeEdgeOptions extends RetryOptions {
  /** A public key of the product (`lpk_…`). */
  publicKey: string;
  /** The product whose edge routes are called. */
  productId: string;
  /** The edge of the key's environment; default `LATTICE_EDGE_URL`, then the local production edge (`http://127.0.0.1:4001`). */
  baseUrl?: string;
  /** Per try; default 30 s. */
  timeoutMs?: number;
  /** Sent on every request, besides the key. */
  headers?: Record<string, string>;
  /** Default the global fetch. */
  fetch?: typeof fetch;
}

class LatticeEdgeClient {
  /** The edge this client calls, without the product. */
  readonly baseUrl: string;
  readonly productId: string;

  constructor(options: LatticeEdgeOptions) {
    if (!options?.publicKey) throw new TypeError('LatticeEdge: publicKey is required');
    if (!options.productId) throw new TypeError('LatticeEdge: productId is required');
    this.baseUrl = options.baseUrl ?? process.env.LATTICE_EDGE_URL ?? DEFAULT_EDGE_URL;
    this.productId = options.productId;
    const call = createTransport({
      ...options,
      baseUrl: `${this.baseUrl.replace(/\/+$/, '')}/${encodeURIComponent(options.productId)}`,
      headers: { ...options.headers, authorization: `Bearer ${options.publicKey}` },
    });
    Object.assign(this, buildApi(EDGE_OPERATIONS, edgeMethodPath, call));
  }
}

/** A client of the public edge: `edge.realtime.token.issue({...})`, `edge.mail.email.send({...})`, … */
export type LatticeEdge = LatticeEdgeClient & LatticeEdgeApi;
export const LatticeEdge = LatticeEdgeClient as new (options: LatticeEdgeOptions) => LatticeEdge;
