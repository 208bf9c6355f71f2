// The chaos run's plot (docs/chaos.svg), drawn with the soak's panels: requests answered 2xx,
// request latency, realtime and mail throughput, and the age of the oldest thing not yet delivered,
// over the seconds of the run, each fault shaded from its start to the service's return and on to
// full service.
import { panel, ratesOf, type Series } from '../soak/report.ts';
import type { Outcome } from '../support/post-outcome.ts';
import type { ChaosResult } from './chaos-run.ts';
import {
  type ChaosFigures,
  DELIVERY_STREAMS,
  delaysOf,
  figuresOf,
  REQUEST_STREAMS,
  requestOutcomes,
} from './windows.ts';

const WINDOW_MS = 3_000;

/** p99 of the answers of the 3 s before `t`, or the wait of the oldest unanswered request if longer, s. */
function latencyAt(outcomes: Outcome[], tMs: number): number {
  const answered: number[] = [];
  let oldestWait = 0;
  for (const o of outcomes) {
    if (o.startedAtMs > tMs) continue;
    if (o.answeredAtMs > tMs) oldestWait = Math.max(oldestWait, tMs - o.startedAtMs);
    else if (o.answeredAtMs > tMs - WINDOW_MS) answered.push(o.answeredAtMs - o.startedAtMs);
  }
  answered.sort((x, y) => x - y);
  const p99 =
    answered.length > 0 ? answered[Math.min(answered.length - 1, Math.floor(answered.length * 0.99))]! : 0;
  return Math.max(p99, oldestWait) / 1000;
}

function okPercentAt(outcomes: Outcome[], tMs: number): number {
  let ok = 0;
  let n = 0;
  for (const o of outcomes) {
    if (o.answeredAtMs <= tMs - WINDOW_MS || o.answeredAtMs > tMs) continue;
    n++;
    if (o.status >= 200 && o.status < 300) ok++;
  }
  return n === 0 ? 0 : (100 * ok) / n;
}

export function svgOf(r: ChaosResult, f: ChaosFigures = figuresOf(r)): string {
  const w = 960;
  const left = 60;
  const pw = w - left - 20;
  const ph = 120;
  const gap = 62;
  const top = 78;
  const { samples } = r;
  const endMs = samples.at(-1)?.tMs ?? 1;
  const subs = Math.max(1, r.settings.subscribers);
  const outcomes = requestOutcomes(r);
  const at = (fn: (tMs: number) => number) => samples.map((s) => fn(s.tMs));
  const colors: Record<string, string> = {
    publishes: '#1c7ed6',
    sends: '#d9480f',
    'management reads': '#ae3ec9',
    'edge reads': '#2f9e44',
    subscribers: '#1c7ed6',
    'smart host': '#d9480f',
    webhooks: '#2f9e44',
  };
  const panels: Array<[string, Series[]]> = [
    [
      'Requests answered 2xx, % of the answers of the last 3 s (0: none answered)',
      REQUEST_STREAMS.map((s) => ({
        label: s,
        color: colors[s]!,
        values: at((t) => okPercentAt(outcomes[s], t)),
      })),
    ],
    [
      'Request latency, s: p99 of the last 3 s, or the wait of the oldest unanswered request',
      (['publishes', 'sends'] as const).map((s) => ({
        label: s,
        color: colors[s]!,
        values: at((t) => latencyAt(outcomes[s], t)),
      })),
    ],
    [
      'Realtime, per second (3 s average)',
      [
        { label: 'publishes accepted', color: '#1c7ed6', values: ratesOf(samples, (s) => s.published) },
        {
          label: 'at the slowest subscriber',
          color: '#74c0fc',
          values: ratesOf(samples, (s) => s.delivered / subs),
        },
      ],
    ],
    [
      'Mail, per second (3 s average)',
      [
        { label: 'sends accepted', color: '#d9480f', values: ratesOf(samples, (s) => s.sent) },
        { label: 'at the smart host', color: '#ffa94d', values: ratesOf(samples, (s) => s.handedOver) },
        { label: 'webhooks', color: '#2f9e44', values: ratesOf(samples, (s) => s.webhooks) },
      ],
    ],
    [
      'Age of the oldest not yet delivered, s (at the slowest subscriber, at the smart host, at the webhook receiver)',
      DELIVERY_STREAMS.map((s) => ({ label: s, color: colors[s]!, values: delaysOf(r, s) })),
    ],
  ];
  const h = top + panels.length * (ph + gap) + 10;
  const x = (ms: number) => left + (Math.min(ms, endMs) / endMs) * pw;
  const shading: string[] = [];
  for (const [i] of panels.entries()) {
    const y = top + i * (ph + gap);
    for (const x1 of f.faults) {
      const e = x1.event;
      const back = e.backAtMs ?? endMs;
      const fill = e.kind === 'backing' ? '#fff3bf' : '#ffe3e3';
      shading.push(
        `<rect x="${x(e.atMs).toFixed(1)}" y="${y}" width="${Math.max(1, x(back) - x(e.atMs)).toFixed(1)}" height="${ph}" fill="${fill}"/>`,
      );
      if (x1.fullServiceS !== null && x1.fullServiceS > 0) {
        shading.push(
          `<rect x="${x(back).toFixed(1)}" y="${y}" width="${Math.max(1, x(back + x1.fullServiceS * 1000) - x(back)).toFixed(1)}" height="${ph}" fill="#e7f5ff"/>`,
        );
      }
    }
  }
  const labels = f.faults.map(
    (x1, i) =>
      `<text x="${x(x1.event.atMs).toFixed(1)}" y="${i % 2 === 0 ? 42 : 54}" font-size="10" fill="#495057">${x1.n} ${x1.event.target}</text>`,
  );
  const ticks: string[] = [];
  const stepS = endMs > 300_000 ? 60 : endMs > 60_000 ? 15 : 5;
  for (let t = 0; t * 1000 <= endMs; t += stepS) {
    ticks.push(
      `<text x="${x(t * 1000).toFixed(1)}" y="${h - 4}" text-anchor="middle" font-size="11">${t}</text>`,
    );
  }
  const data = { samples, chaos: [], loadMs: r.loadMs };
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h + 14}" font-family="sans-serif">`,
    '<title>Chaos: success rate, latency, throughput and delivery delay over time, faults shaded</title>',
    '<rect width="100%" height="100%" fill="white"/>',
    `<text x="${left}" y="18" font-size="12" fill="#495057">Shaded: yellow, a backing service stopped until it answered again; red, a role process killed until it was ready again; blue, from its return to full service.</text>`,
    `<text x="${left}" y="32" font-size="12" fill="#495057">Dashed: the traffic stopped. x: seconds since the traffic started. The faults:</text>`,
    ...labels,
    ...shading,
    ...panels.flatMap(([title, series], i) =>
      panel(data, title, series, { x: left, y: top + i * (ph + gap), w: pw, h: ph }),
    ),
    ...ticks,
    '</svg>',
    '',
  ].join('\n');
}
