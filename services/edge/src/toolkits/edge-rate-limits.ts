// Both limits apply to a toolkit's rate-limited routes (the per-IP limit and the product's
// quota or send rate): the edge set the per-IP members of the RateLimit fields; the toolkit's
// are appended to the same Structured Field Lists, on the answer and on a 429 alike.
import { ApiError } from '@lattice/core';
import type { Request, Response } from 'express';

const RATE_LIMIT_FIELDS = ['RateLimit-Policy', 'RateLimit'] as const;

export function withEdgeRateLimits(res: Response, headers: Record<string, string>): Record<string, string> {
  const merged = { ...headers };
  for (const field of RATE_LIMIT_FIELDS) {
    const existing = res.getHeader(field);
    const mine = headers[field];
    if (typeof existing === 'string' && existing !== '' && mine !== undefined)
      merged[field] = `${existing}, ${mine}`;
  }
  return merged;
}

/** A toolkit's 429 with the edge's RateLimit members merged in; other errors unchanged. */
export function withEdgeRateLimitsOnRefusal(res: Response, err: unknown): unknown {
  if (err instanceof ApiError && err.status === 429) {
    return new ApiError(err.status, err.code, err.step, err.message, {
      headers: withEdgeRateLimits(res, err.headers),
    });
  }
  return err;
}

export function headerOf(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
