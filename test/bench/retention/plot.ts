// docs/benchmarks-retention.svg, drawn by hand with the benchmarks' plot helpers: the latency of
// each path without the purges, with them (whole rounds) and while a purge run was working, and
// every purge run's duration beside the budget.
import { groupedBars, legend, svgDocument } from '../support/svg-bars.ts';
import { gridLines } from '../support/svg-grid-lines.ts';
import { type BenchResult, fixed, type RoundResult, type Summary } from './figures.ts';
import type { RoundLoad, Samples } from './load-round.ts';

const ARMS = {
  without: '#1c7ed6',
  'with (whole rounds)': '#f59f00',
  'during purge work': '#d9480f',
} as const;
const TABLES: Record<string, string> = { mail_webhook_deliveries: '#5f3dc4', mail_emails: '#2b8a3e' };

function runsPanel(r: BenchResult, x0: number, y0: number, w: number, h: number): string[] {
  const runs = r.rounds.flatMap((x) => x.purgeRuns);
  const budget = r.settings.budgetMs;
  const step = 500;
  const max = Math.ceil(Math.max(budget * 1.2, ...runs.map((p) => p.wallMs * 1.05)) / step) * step;
  const ticks = Array.from({ length: max / step + 1 }, (_, k) => k * step);
  const x = (i: number) => x0 + ((i + 0.5) / Math.max(1, runs.length)) * w;
  const y = (ms: number) => y0 + h - (ms / max) * h;
  const out = [
    `<text x="${x0}" y="${y0 - 10}" font-size="13">Purge runs in order: duration (ms) and the budget</text>`,
    ...gridLines(
      x0,
      w,
      ticks.map((ms) => ({ y: y(ms), text: fixed(ms) })),
    ),
    `<line x1="${x0}" x2="${x0 + w}" y1="${y(budget).toFixed(1)}" y2="${y(budget).toFixed(1)}" stroke="#c92a2a" stroke-dasharray="4 3"/>`,
    `<text x="${x0 + w - 4}" y="${(y(budget) + 12).toFixed(1)}" text-anchor="end" font-size="10" fill="#c92a2a">budget ${budget} ms</text>`,
  ];
  runs.forEach((p, i) => {
    out.push(
      `<circle cx="${x(i).toFixed(1)}" cy="${y(p.wallMs).toFixed(1)}" r="2.2" fill="${p.drained ? 'none' : (TABLES[p.table] ?? '#868e96')}" stroke="${TABLES[p.table] ?? '#868e96'}"/>`,
    );
  });
  // Where each with-purge round's runs start.
  let at = 0;
  for (const round of r.rounds.filter((x) => x.arm === 'with')) {
    out.push(
      `<line x1="${x(at - 0.5).toFixed(1)}" x2="${x(at - 0.5).toFixed(1)}" y1="${y0}" y2="${y0 + h}" stroke="#bbb"/>`,
      `<text x="${(x(at - 0.5) + 3).toFixed(1)}" y="${y0 + h + 14}" font-size="10">${round.load.label}</text>`,
    );
    at += round.purgeRuns.length;
  }
  out.push(
    `<text x="${x0 + w / 2}" y="${y0 + h + 30}" text-anchor="middle" font-size="10">runs (filled: stopped on the budget; hollow: drained)</text>`,
  );
  return out;
}

/** The longest latency of the samples started in each second of a round. */
function perSecondMax(l: RoundLoad, pick: (l: RoundLoad) => Samples, seconds: number): number[] {
  const out = new Array<number>(seconds).fill(0);
  const s = pick(l);
  s.at.forEach((at, i) => {
    const k = Math.floor((at - l.startEpochMs) / 1000);
    if (k >= 0 && k < seconds) out[k] = Math.max(out[k]!, s.ms[i]!);
  });
  return out;
}

/**
 * One strip per with-purge round: the longest delivery and send latency of each second, the
 * paired round without purging in grey, and the purge runs that deleted a batch or more shaded.
 */
function timelines(r: BenchResult, x0: number, y0: number, w: number, stripH: number, gap: number): string[] {
  const seconds = r.settings.roundSeconds;
  const withRounds = r.rounds.filter((x) => x.arm === 'with');
  const series = (x: RoundResult) => ({
    deliveries: perSecondMax(x.load, (l) => l.deliveries, seconds),
    sends: perSecondMax(x.load, (l) => l.sends, seconds),
  });
  const paired = (x: RoundResult) => r.rounds.find((o) => o.arm === 'without' && o.pair === x.pair);
  const all = withRounds.flatMap((x) => {
    const p = paired(x);
    const a = series(x);
    return [...a.deliveries, ...a.sends, ...(p ? [...series(p).deliveries, ...series(p).sends] : [])];
  });
  const max = Math.max(10, ...all) * 1.1;
  const x = (sec: number) => x0 + (sec / seconds) * w;
  const out = [
    `<text x="${x0}" y="${y0 - 10}" font-size="13">Longest latency started in each second (ms), with-purge rounds; shaded: purge runs deleting a batch or more</text>`,
  ];
  withRounds.forEach((round, k) => {
    const top = y0 + k * (stripH + gap);
    const y = (ms: number) => top + stripH - (Math.min(ms, max) / max) * stripH;
    out.push(
      ...gridLines(x0, w, [
        { y: y(0), text: '0' },
        { y: y(max / 1.1), text: fixed(max / 1.1) },
      ]),
      `<text x="${x0 + w + 6}" y="${top + 12}" font-size="10">${round.load.label}</text>`,
    );
    for (const p of round.purgeRuns.filter((run) => run.deleted >= r.settings.batchSize)) {
      const a = (p.startEpochMs - round.load.startEpochMs) / 1000;
      const b = a + p.wallMs / 1000;
      out.push(
        `<rect x="${x(Math.max(0, a)).toFixed(1)}" y="${top}" width="${Math.max(0.5, x(Math.min(seconds, b)) - x(Math.max(0, a))).toFixed(1)}" height="${stripH}" fill="${TABLES[p.table] ?? '#868e96'}" opacity="0.12"/>`,
      );
    }
    const line = (values: number[], color: string, width: number) =>
      `<polyline fill="none" stroke="${color}" stroke-width="${width}" points="${values.map((v, i) => `${x(i + 0.5).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}"/>`;
    const p = paired(round);
    if (p) out.push(line(series(p).deliveries, '#adb5bd', 1), line(series(p).sends, '#ced4da', 1));
    const own = series(round);
    out.push(line(own.deliveries, ARMS['during purge work'], 1.5), line(own.sends, '#1971c2', 1.5));
  });
  const bottom = y0 + withRounds.length * (stripH + gap) - gap;
  for (let t = 0; t <= seconds; t += 5)
    out.push(
      `<text x="${x(t).toFixed(1)}" y="${bottom + 14}" text-anchor="middle" font-size="10">${t}</text>`,
    );
  out.push(
    `<text x="${x0 + w / 2}" y="${bottom + 28}" text-anchor="middle" font-size="10">seconds into the round (red: deliveries, blue: sends; grey: the paired round without purging)</text>`,
  );
  return out;
}

export function svgOf(r: BenchResult, s: Summary): string {
  const bars = (label: string, f: Summary['deliveries'], p: 'p50Ms' | 'p99Ms') => ({
    label,
    bars: [
      { series: 'without', value: f.without[p], text: fixed(f.without[p], 1) },
      { series: 'with (whole rounds)', value: f.with[p], text: fixed(f.with[p], 1) },
      { series: 'during purge work', value: f.during[p], text: fixed(f.during[p], 1) },
    ],
  });
  const stripH = 70;
  const gap = 16;
  const strips = r.rounds.filter((x) => x.arm === 'with').length;
  const h = 400 + strips * (stripH + gap) + 30;
  return svgDocument(780, h, 'Retention benchmark: latency with and without the purges, and each purge run', [
    ...groupedBars({
      title: 'Latency (ms) by path and arm',
      x0: 50,
      y0: 40,
      w: 330,
      h: 240,
      groups: [
        bars('deliveries p50', s.deliveries, 'p50Ms'),
        bars('deliveries p99', s.deliveries, 'p99Ms'),
        bars('sends p50', s.sends, 'p50Ms'),
        bars('sends p99', s.sends, 'p99Ms'),
      ],
      colors: ARMS,
    }),
    ...runsPanel(r, 450, 40, 310, 240),
    ...legend(Object.keys(ARMS), ARMS, 50, 330, 130),
    ...legend(
      ['webhook deliveries purge', 'email purge'],
      {
        'webhook deliveries purge': TABLES.mail_webhook_deliveries!,
        'email purge': TABLES.mail_emails!,
      },
      450,
      348,
      170,
    ),
    ...timelines(r, 50, 400, 620, stripH, gap),
  ]);
}
