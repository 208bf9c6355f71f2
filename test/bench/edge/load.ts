// One measurement of the edge benchmark: autocannon against one server for `durationS`, with the
// server's CPU, Redis's CPU and the server's log bytes over it, and exact latencies (autocannon's
// own histogram keeps whole milliseconds).
import type { ChildProcess } from 'node:child_process';
import type { createRedis } from '@lattice/redis';
import autocannon from 'autocannon';
import type { LogFiles } from '../support/platform-log.ts';
import type { ServerMessage } from './bench-server.ts';
import type { RoundResult } from './report.ts';

export interface Server {
  child: ChildProcess;
  url: string;
  /** Its log file's name (support/platform-log.ts). */
  logName: string;
  ready: Extract<ServerMessage, { type: 'ready' }>;
  cpuUs(): Promise<number>;
  stop(): Promise<void>;
}

/** Redis server CPU so far, in microseconds (INFO cpu). */
async function redisCpuUs(redis: ReturnType<typeof createRedis>): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (field('used_cpu_sys') + field('used_cpu_user')) * 1e6;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

// edge-spread: a new client address per request, continuing across rounds; 2^20 addresses last
// longer than the rounds, so no address is seen twice in a window.
let spreadCounter = 0;
function nextSpreadAddress(): string {
  const i = spreadCounter++ & 0xfffff;
  return `10.${i >> 16}.${(i >> 8) & 0xff}.${i & 0xff}`;
}

export interface LoadRequest {
  path: string;
  headers: Record<string, string>;
  /** Set X-Forwarded-For to a new address on every request (edge-spread). */
  spread?: boolean;
}

export async function load(
  label: string,
  server: Server,
  request: LoadRequest,
  durationS: number,
  redis: ReturnType<typeof createRedis>,
  logs: LogFiles,
  connections: number,
  log: (line: string) => void,
): Promise<RoundResult> {
  const latencies: number[] = [];
  const perSecond: number[] = [];
  logs.take(server.logName);
  const cpuBefore = await server.cpuUs();
  const redisBefore = await redisCpuUs(redis);
  let done: (result: autocannon.Result) => void = () => {};
  let failed: (err: unknown) => void = () => {};
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    done = resolve;
    failed = reject;
  });
  const instance = autocannon(
    {
      url: `${server.url}${request.path}`,
      headers: request.headers,
      connections,
      pipelining: 1,
      duration: durationS,
      ...(request.spread
        ? {
            requests: [
              {
                // Rebuilds the request every time: a few µs more in the load generator.
                setupRequest: (r: autocannon.Request) => ({
                  ...r,
                  headers: { ...r.headers, 'x-forwarded-for': nextSpreadAddress() },
                }),
              },
            ],
          }
        : {}),
    },
    (err, result) => (err ? failed(err) : done(result)),
  );
  // Exact latencies (autocannon's own histogram keeps whole milliseconds).
  instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
    if (statusCode === 200) latencies.push(responseTimeMs);
  });
  // The typings declare 'tick' without its argument; autocannon passes { counter, bytes }.
  const events: NodeJS.EventEmitter = instance;
  events.on('tick', ({ counter }: { counter: number }) => {
    // autocannon ticks once more after the duration, for the last partial second.
    if (perSecond.length >= durationS) return;
    perSecond.push(counter);
    log(
      `  ${label.padEnd(16)} ${String(perSecond.length).padStart(3)} s  ${String(counter).padStart(6)} req/s`,
    );
  });
  const result = await finished;
  const cpuUs = (await server.cpuUs()) - cpuBefore;
  const redisUs = (await redisCpuUs(redis)) - redisBefore;
  const logBytes = logs.take(server.logName);
  const sorted = Float64Array.from(latencies).sort();
  const ok = result['2xx'];
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(
      `${label}: ${result.non2xx} non-2xx answers, ${result.errors} errors: the bench is not measuring the pass path`,
    );
  }
  const round: RoundResult = {
    label,
    requests: ok,
    rps: ok / result.duration,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    serverCpuUsPerRequest: cpuUs / ok,
    redisCpuUsPerRequest: redisUs / ok,
    logBytesPerRequest: logBytes / ok,
    perSecond,
  };
  log(
    `${label.padEnd(18)} ${round.rps.toFixed(0).padStart(6)} req/s  p50 ${round.p50Ms.toFixed(2)} ms  p99 ${round.p99Ms.toFixed(2)} ms  server ${round.serverCpuUsPerRequest.toFixed(1)} µs/req  redis ${round.redisCpuUsPerRequest.toFixed(1)} µs/req  log ${round.logBytesPerRequest.toFixed(0)} B/req`,
  );
  return round;
}
