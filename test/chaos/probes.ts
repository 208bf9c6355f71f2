// Read probes of the chaos run: what the publishers and the sender do not touch. One GET every
// `everyMs` per probe, rotating over its URLs (the management API's namespace, a channel's history
// on each edge), each answer kept as the load clients keep theirs (post-outcome.ts), so the
// answers during a fault and the recovery after it are counted for reads too.
import { sleep } from '@lattice/core';
import { type Outcome, REQUEST_BOUND_MS } from '../support/post-outcome.ts';

export interface ProbeTarget {
  name: string;
  urls: string[];
  token: string;
}

export interface Probes {
  outcomes: Map<string, Outcome[]>;
  stop(): Promise<void>;
}

export async function getOutcome(url: string, token: string, seq: number): Promise<Outcome> {
  const outcome: Outcome = {
    seq,
    url,
    startedAtMs: Date.now(),
    answeredAtMs: 0,
    status: 0,
    id: null,
    code: null,
    retryAfter: null,
    problem: null,
  };
  try {
    const res = await fetch(url, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(REQUEST_BOUND_MS),
    });
    const text = await res.text();
    outcome.status = res.status;
    outcome.retryAfter = res.headers.get('retry-after');
    if (res.status >= 300)
      outcome.code = (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? null;
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    outcome.problem =
      (err as Error).name === 'TimeoutError'
        ? `no answer within ${REQUEST_BOUND_MS} ms`
        : `${String(err)}${cause ? ` (${cause.code ?? cause.message})` : ''}`;
  }
  outcome.answeredAtMs = Date.now();
  return outcome;
}

export function startProbes(targets: ProbeTarget[], everyMs: number): Probes {
  const outcomes = new Map<string, Outcome[]>(targets.map((t) => [t.name, []]));
  let stopped = false;
  const loops = targets.map(async (t) => {
    for (let seq = 1; !stopped; seq++) {
      const nextMs = Date.now() + everyMs;
      outcomes.get(t.name)!.push(await getOutcome(t.urls[seq % t.urls.length]!, t.token, seq));
      await sleep(Math.max(0, nextMs - Date.now()));
    }
  });
  return {
    outcomes,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}
