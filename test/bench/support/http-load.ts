// What the HTTP benchmarks' load generators share: a keep-alive POSTer, a fixed-concurrency job
// pool, and percentiles of sorted samples (those of several measurements merged first).
import { Agent, request } from 'node:http';

export function percentile(sorted: Float64Array, p: number): number {
  return sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** The samples of several measurements together, ascending (for percentiles over all of them). */
export function concatSorted(samples: Float64Array[]): Float64Array {
  const out = new Float64Array(samples.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of samples) {
    out.set(a, at);
    at += a.length;
  }
  return out.sort();
}

/**
 * One POST of `body` to `target` over `agent`: resolves with the answer's status once its body
 * has been read (kept as `text` when `readBody`, else dropped unread); rejects when no answer
 * came, or none within `timeoutMs`.
 */
export function postOnce(
  agent: Agent,
  target: URL,
  headers: Record<string, string>,
  body: string,
  opts: { readBody?: boolean; timeoutMs?: number } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        if (opts.readBody) res.on('data', (c: Buffer) => chunks.push(c));
        else res.resume();
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text: opts.readBody ? Buffer.concat(chunks).toString() : '',
          }),
        );
        res.on('error', reject);
      },
    );
    if (opts.timeoutMs !== undefined)
      req.setTimeout(opts.timeoutMs, () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * POSTs JSON over a keep-alive agent with one socket per worker: node:http costs the load
 * generator far less CPU per request than fetch, and the generator shares the machine's cores.
 */
export function poster(url: string, headers: Record<string, string>, sockets: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const target = new URL(url);
  return {
    post: (body: string) => postOnce(agent, target, headers, body, { readBody: true }),
    close: () => agent.destroy(),
  };
}

/** The same as `poster`, for a generator that needs only the answers' statuses (bodies dropped unread). */
export function statusPoster(url: string, headers: Record<string, string>, sockets: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const target = new URL(url);
  return {
    post: async (body: string) => (await postOnce(agent, target, headers, body)).status,
    close: () => agent.destroy(),
  };
}

/** Runs `count` jobs with `concurrency` in flight. */
export async function pool(
  count: number,
  concurrency: number,
  job: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await job(next++);
    }),
  );
}
