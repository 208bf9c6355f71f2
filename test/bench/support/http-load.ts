// What the HTTP benchmarks' load generators share: a keep-alive POSTer, a fixed-concurrency job
// pool, and percentiles of sorted samples.
import { Agent, request } from 'node:http';

export function percentile(sorted: Float64Array, p: number): number {
  return sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/**
 * POSTs JSON over a keep-alive agent with one socket per worker: node:http costs the load
 * generator far less CPU per request than fetch, and the generator shares the machine's cores.
 */
export function poster(url: string, headers: Record<string, string>, sockets: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const target = new URL(url);
  return {
    post(body: string): Promise<{ status: number; text: string }> {
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
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
            );
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    },
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
