// The bare arm of the throughput rounds: in the load generator process, one lane per endpoint of
// the platform's rounds, each a sequential loop of HTTPS POSTs (node:https, one keep-alive agent
// with the options of the platform's requester) to the same receiver, as many requests as the
// platform delivers in a round. Each request carries a real delivery body (webhookPayload of an
// event made like the platform's) and the headers the platform sends, with a Standard Webhooks
// signature computed for it under its lane's own secret.
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:https';
import { sleep } from '@lattice/core';
import { mintWebhookSecret, signWebhook, webhookPayload, webhookSecretKey } from '@lattice/mail';
import { waitUntil } from '../../support/wait-until.ts';
import { type Bench, benchEvent } from './endpoints.ts';
import { epochMs } from './platform-phases.ts';
import { cpuNow, cpuSince } from './processes.ts';
import type { Round } from './report.ts';

/** What the platform's requester (webhook-request.ts) sends besides the signature. */
const USER_AGENT = 'lattice-mail-webhooks/1';
/** The platform requester's idle socket timeout (its default). */
const IDLE_SOCKET_TIMEOUT_MS = 4000;

export interface BareClient {
  agent: Agent;
  target: URL;
}

/** One keep-alive agent for the whole run, as the platform's requester keeps one for its life. */
export function bareClient(receiverUrl: string, sockets: number): BareClient {
  return {
    agent: new Agent({
      keepAlive: true,
      maxSockets: sockets,
      timeout: IDLE_SOCKET_TIMEOUT_MS,
      scheduling: 'lifo',
    }),
    target: new URL(receiverUrl),
  };
}

function post(c: BareClient, path: string, headers: Record<string, string>, body: string): Promise<number> {
  const bytes = Buffer.from(body, 'utf8');
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent: c.agent,
        method: 'POST',
        host: c.target.hostname,
        port: Number(c.target.port),
        path,
        headers: {
          ...headers,
          host: c.target.host,
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'content-length': String(bytes.length),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.setNoDelay(true);
    req.on('error', reject);
    req.end(bytes);
  });
}

export async function bareRound(
  b: Bench,
  c: BareClient,
  label: string,
  tag: string,
  events: number,
  lanes: number,
): Promise<Round> {
  // The bodies are made before the clock starts, as the platform's fan-out makes each once.
  const bodies = Array.from({ length: events }, (_, i) => webhookPayload(benchEvent(b.productId, i)));
  const keys = Array.from({ length: lanes }, () => webhookSecretKey(mintWebhookSecret()));
  const n = events * lanes;
  const expected = new Map<string, string>();
  const cpuBefore = await cpuNow(b.servers);
  const tally = b.arrivals.begin();
  let answered = 0;
  let last = 0;
  const startMs = epochMs();
  const ticker = setInterval(() => {
    b.log(
      `  ${label.padEnd(16)} ${String(answered).padStart(6)}/${n} answered  ${String(tally.total).padStart(6)}/${n} received  ${String(tally.total - last).padStart(5)}/s`,
    );
    last = tally.total;
  }, 1000);
  try {
    await Promise.all(
      keys.map(async (key, lane) => {
        const path = `/b/${tag}/${lane}`;
        for (const body of bodies) {
          const id = randomUUID();
          expected.set(id, path);
          const signed = signWebhook(key, id, Date.now() / 1000, body);
          const status = await post(c, path, { ...signed }, body);
          if (status !== 204) throw new Error(`${label}: the receiver answered ${status}`);
          answered++;
        }
      }),
    );
    await waitUntil(`${label}: ${tally.total} of ${n} received`, () => tally.total >= n, 120_000, 5);
  } finally {
    clearInterval(ticker);
  }
  const cpu = await cpuSince(b.servers, cpuBefore, n);
  const elapsedMs = Math.max(...tally.times) - startMs;
  await sleep(200);
  tally.check(label, expected);
  b.arrivals.end();
  return {
    label,
    arm: 'bare',
    deliveries: n,
    elapsedMs,
    perSecond: n / (elapsedMs / 1000),
    publishedPerSecond: Number.NaN,
    cpu,
    perSecondSeries: tally.perSecond(startMs),
  };
}
