// `new Lattice({ apiKey, baseUrl })`: the management API, one method per catalog operation
// (shared/sdk/README.md), built from the generated operation table and typed
// by the generated LatticeApi interface.
import { buildApi } from './api-builder.ts';
import type { LatticeApi } from './generated/management-api.ts';
import { MANAGEMENT_OPERATIONS } from './generated/management-operations.ts';
import { methodPath } from './naming.ts';
import type { RetryOptions } from './retry-policy.ts';
import { createTransport } from './transport.ts';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:4000';

export interface LatticeOptions extends RetryOptions {
  /** A member token (`lmt_…`), a mail key (`lmk_…`) or a realtime key (`rtk_…`); default `LATTICE_API_KEY`. */
  apiKey?: string;
  /** The management API; default `LATTICE_BASE_URL`, then the local one (`http://127.0.0.1:4000`). */
  baseUrl?: string;
  /** Per try; default 30 s. */
  timeoutMs?: number;
  /** Sent on every request, besides the credential. */
  headers?: Record<string, string>;
  /** Default the global fetch. */
  fetch?: typeof fetch;
}

class LatticeClient {
  /** The management API this client calls. */
  readonly baseUrl: string;

  constructor(options: LatticeOptions = {}) {
    const apiKey = options.apiKey ?? process.env.LATTICE_API_KEY;
    if (!apiKey) throw new TypeError('Lattice: apiKey is required (or set LATTICE_API_KEY)');
    this.baseUrl = options.baseUrl ?? process.env.LATTICE_BASE_URL ?? DEFAULT_BASE_URL;
    const call = createTransport({
      ...options,
      baseUrl: this.baseUrl,
      headers: { ...options.headers, authorization: `Bearer ${apiKey}` },
    });
    Object.assign(this, buildApi(MANAGEMENT_OPERATIONS, methodPath, call));
  }
}

/** A client of the management API: `lattice.organization.publicKeys.list()`, `lattice.mail.email.send({...})`, … */
export type Lattice = LatticeClient & LatticeApi;
export const Lattice = LatticeClient as new (options?: LatticeOptions) => Lattice;
