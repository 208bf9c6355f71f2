// The soak's report: docs/soak.md (a page of its own, written whole: the run's settings, the
// verdict, the counts against their bounds, how requests were answered, the faults) and
// docs/soak.svg (throughput and consumer lag over time, the faults shaded). What the figures
// mean is explained in docs/operations.md "The soak", not here.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Answers } from './accounting.ts';
import type { Sample } from './sampler.ts';
import type { SoakResult } from './soak.ts';
import { verdictOf } from './verdict.ts';

const DOC = fileURLToPath(new URL('../../docs/soak.md', import.meta.url));
/**
 * Where the section `npm run chaos` writes into the same page begins (test/chaos/report.ts):
 * the soak's report keeps everything from it on.
 */
export const CHAOS_SECTION_MARK =
  '<!-- chaos: written by `npm run chaos` (test/chaos/); do not edit by hand -->';
const SVG = fileURLToPath(new URL('../../docs/soak.svg', import.meta.url));
const BIOME = fileURLToPath(new URL('../../node_modules/.bin/biome', import.meta.url));

const s1 = (ms: number) => (ms / 1000).toFixed(1);

/** Per-second rates of a running total, averaged over `window` seconds. */
export function ratesOf(samples: Sample[], total: (s: Sample) => number, window = 3): number[] {
  const perSecond = samples.map((s, i) => {
    if (i === 0) return 0;
    const prev = samples[i - 1]!;
    return ((total(s) - total(prev)) * 1000) / Math.max(1, s.tMs - prev.tMs);
  });
  return perSecond.map((_, i) => {
    const from = Math.max(0, i - window + 1);
    const part = perSecond.slice(from, i + 1);
    return part.reduce((a, b) => a + b, 0) / part.length;
  });
}

export interface Series {
  label: string;
  color: string;
  values: number[];
}

/** One plot panel: the series over the samples' times, the faults shaded (the chaos run draws its own). */
export function panel(
  r: Pick<SoakResult, 'samples' | 'chaos' | 'loadMs'>,
  title: string,
  series: Series[],
  box: { x: number; y: number; w: number; h: number },
): string[] {
  const { samples } = r;
  const endMs = samples.at(-1)?.tMs ?? 1;
  const max = Math.max(1, ...series.flatMap((s) => s.values)) * 1.1;
  const x = (ms: number) => box.x + (ms / endMs) * box.w;
  const y = (v: number) => box.y + box.h - (v / max) * box.h;
  const out: string[] = [`<text x="${box.x}" y="${box.y - 8}" font-size="13">${title}</text>`];
  for (const e of r.chaos) {
    const to = e.backAtMs ?? endMs;
    out.push(
      `<rect x="${x(e.atMs).toFixed(1)}" y="${box.y}" width="${Math.max(1, x(to) - x(e.atMs)).toFixed(1)}" height="${box.h}" fill="${e.target === 'redis' ? '#fff3bf' : '#ffe3e3'}"/>`,
    );
  }
  out.push(
    `<line x1="${x(r.loadMs)}" x2="${x(r.loadMs)}" y1="${box.y}" y2="${box.y + box.h}" stroke="#495057" stroke-dasharray="4 3"/>`,
  );
  for (const f of [0, 0.5, 1]) {
    const v = (max / 1.1) * f;
    out.push(
      `<line x1="${box.x}" x2="${box.x + box.w}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#dee2e6"/>`,
      `<text x="${box.x - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" font-size="11">${v >= 10 ? v.toFixed(0) : v.toFixed(1)}</text>`,
    );
  }
  let legendX = box.x + box.w;
  for (const s of [...series].reverse()) {
    const points = s.values.map((v, i) => `${x(samples[i]!.tMs).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    out.push(`<polyline fill="none" stroke="${s.color}" stroke-width="1.4" points="${points}"/>`);
    legendX -= 8 + s.label.length * 6.2;
    out.push(
      `<text x="${legendX.toFixed(0)}" y="${box.y - 8}" font-size="11" fill="${s.color}">${s.label}</text>`,
    );
  }
  return out;
}

export function svgOf(r: SoakResult): string {
  const w = 960;
  const left = 60;
  const pw = w - left - 20;
  const ph = 150;
  const gap = 60;
  const { samples } = r;
  const subs = Math.max(1, r.settings.subscribers);
  const groups = [...new Set(samples.flatMap((s) => Object.keys(s.lag)))].sort();
  const palette = ['#1c7ed6', '#d9480f', '#2f9e44', '#ae3ec9', '#f08c00', '#0c8599', '#868e96', '#e64980'];
  const endMs = samples.at(-1)?.tMs ?? 1;
  const h = 40 + 3 * (ph + gap) + 20;
  const ticks: string[] = [];
  const stepS = endMs > 300_000 ? 60 : endMs > 60_000 ? 15 : 5;
  for (let t = 0; t * 1000 <= endMs; t += stepS) {
    const xt = left + ((t * 1000) / endMs) * pw;
    ticks.push(`<text x="${xt.toFixed(1)}" y="${h - 24}" text-anchor="middle" font-size="11">${t}</text>`);
  }
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" font-family="sans-serif">`,
    '<title>Soak: throughput and consumer lag over time, faults shaded</title>',
    '<rect width="100%" height="100%" fill="white"/>',
    `<text x="${left}" y="18" font-size="12" fill="#495057">Shaded: a process down until it answered again (red: a role, yellow: Redis). Dashed: the traffic stopped; after it, the drain. Rates averaged over 3 s.</text>`,
    ...panel(
      r,
      'Realtime, per second',
      [
        { label: 'publishes accepted', color: '#1c7ed6', values: ratesOf(samples, (s) => s.published) },
        {
          label: 'delivered per subscriber',
          color: '#2f9e44',
          values: ratesOf(samples, (s) => s.delivered / subs),
        },
      ],
      { x: left, y: 60, w: pw, h: ph },
    ),
    ...panel(
      r,
      'Mail, per second',
      [
        { label: 'sends accepted', color: '#1c7ed6', values: ratesOf(samples, (s) => s.sent) },
        { label: 'at the smart host', color: '#d9480f', values: ratesOf(samples, (s) => s.handedOver) },
        { label: 'webhooks received', color: '#2f9e44', values: ratesOf(samples, (s) => s.webhooks) },
      ],
      { x: left, y: 60 + ph + gap, w: pw, h: ph },
    ),
    ...panel(
      r,
      'Consumer lag (records) as the broker sees it, by actor group',
      groups.map((t, i) => ({
        label: t,
        color: palette[i % palette.length]!,
        values: samples.map((s) => s.lag[t] ?? 0),
      })),
      { x: left, y: 60 + 2 * (ph + gap), w: pw, h: ph },
    ),
    ...ticks,
    `<text x="${left + pw / 2}" y="${h - 6}" text-anchor="middle" font-size="11">seconds since the traffic started</text>`,
    '</svg>',
    '',
  ].join('\n');
}

function refusals(a: Answers): string {
  const parts = Object.entries(a.refused).map(([k, n]) => `${n} × ${k}`);
  return parts.length > 0 ? parts.join(', ') : '0';
}

export function markdownOf(r: SoakResult): string {
  const a = r.accounting;
  const { problems, bounds } = verdictOf(r);
  const st = r.settings;
  const answersRow = (name: string, x: Answers) =>
    `| ${name} | ${x.attempts} | ${x.accepted} | ${refusals(x)} | ${x.transport} | ${x.hangs} | ${x.unexpected.length} | ${x.unresolved} | ${x.maxAttempts} |`;
  return [
    '# The soak',
    '',
    `Written by \`npm run soak\` (test/soak/) on ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC; what it does and`,
    'what its figures mean: [operations.md, "The soak"](operations.md#the-soak). Do not edit by hand.',
    '',
    `**${problems.length === 0 ? 'Passed' : 'Failed'}**: ${problems.length === 0 ? 'nothing accepted was lost, no request hung or got an answer it must never get, every duplicate within its bound.' : problems.join('; ')}`,
    '',
    `${s1(r.loadMs)} s of traffic, then ${s1(r.drainMs)} s until everything accepted had arrived everywhere (${r.drainedInTime ? 'within' : 'NOT within'} the ${st.drainTimeoutMs / 1000} s bound).`,
    `Processes: ${st.actors} actor hosts, ${st.gateways} gateways, ${st.edges} edges, 1 management API, a Redis of the soak's own;`,
    `traffic: ${st.channels} channels published to every ${st.publishGapMs} ms each, an email every ${st.sendGapMs} ms,`,
    `${st.subscribers} subscribers on every channel, one webhook endpoint for \`email.delivered\`; a fault every ${st.chaosEveryMs / 1000} s after the last was repaired, each process down ${st.downMs / 1000} s before it is started again.`,
    '',
    '| what | accepted | applied | delivered | lost | duplicated (bound) |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    `| realtime publishes | ${a.publishes.accepted} | ${a.publishes.applied} in history | — | ${a.publishes.lost} | ${a.publishes.duplicated} in history (${bounds.publishes}) |`,
    `| messages at the subscribers | — | ${a.subscribers.expected} expected | ${a.subscribers.delivered} | ${a.subscribers.lost} | ${a.subscribers.duplicated} (0) |`,
    `| emails | ${a.emails.accepted} | ${a.emails.applied} delivered | ${a.emails.handedOver} at the smart host | ${a.emails.lost} | ${a.emails.duplicated} copies, ${a.emails.duplicatesCounted} counted by the sender (${bounds.emails}) |`,
    `| webhook deliveries | — | ${a.webhooks.expected} expected | ${a.webhooks.delivered} | ${a.webhooks.lost} | ${a.webhooks.duplicated} repeated attempts (${bounds.webhooks}), ${a.webhooks.duplicatedEvents} events twice (0) |`,
    '',
    `Order: ${a.publishes.outOfOrder} publishes out of order in history, ${a.publishes.offsetFaults} offset faults (offsets not 1..n in one epoch), ${a.publishes.idMismatches} 202 ids not the history's; at the subscribers ${a.subscribers.outOfOrder} out of order, ${a.subscribers.unrecovered} recoveries answered \`recovered: false\`, ${a.subscribers.disconnects} \`disconnected\` events in all (each failed reconnect attempt is one).`,
    `Answered without a 202 but applied all the same: ${a.publishes.landedUnanswered} publishes, ${a.emails.landedUnanswered} emails (the traffic stopped before their retry).`,
    '',
    '| requests | attempts | 202 | refused | connection failed | hung | never expected | unanswered at the stop | most attempts for one |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    answersRow('publishes', a.publishes),
    answersRow('sends', a.emails),
    '',
    '| fault | at s | process | signal | answering again after s |',
    '| ---: | ---: | --- | --- | ---: |',
    ...r.chaos.map(
      (e, i) =>
        `| ${i + 1} | ${s1(e.atMs)} | ${e.target} | ${e.signal} | ${e.backAtMs === null ? `never: ${e.problem}` : s1(e.backAtMs - e.atMs)} |`,
    ),
    '',
    '![throughput and consumer lag over time, faults shaded](soak.svg)',
    '',
  ].join('\n');
}

export function writeReport(r: SoakResult, write: boolean): string[] {
  const a = r.accounting;
  const lines = [
    `publishes: ${a.publishes.accepted} accepted, ${a.publishes.applied} applied, ${a.publishes.lost} lost, ${a.publishes.duplicated} duplicated`,
    `subscribers: ${a.subscribers.delivered} of ${a.subscribers.expected} delivered, ${a.subscribers.lost} lost, ${a.subscribers.duplicated} duplicated`,
    `emails: ${a.emails.accepted} accepted, ${a.emails.handedOver} at the smart host, ${a.emails.lost} lost, ${a.emails.duplicated} duplicated`,
    `webhooks: ${a.webhooks.delivered} of ${a.webhooks.expected} delivered, ${a.webhooks.lost} lost, ${a.webhooks.duplicated} repeated`,
    `faults: ${Object.entries(a.faults)
      .map(([k, n]) => `${n} × ${k}`)
      .join(', ')}`,
  ];
  if (!write) return [...lines, 'report not written (SOAK_WRITE=0)'];
  const page = existsSync(DOC) ? readFileSync(DOC, 'utf8') : '';
  const chaos = page.includes(CHAOS_SECTION_MARK) ? page.slice(page.indexOf(CHAOS_SECTION_MARK)) : '';
  writeFileSync(DOC, chaos ? `${markdownOf(r)}\n${chaos}` : markdownOf(r));
  writeFileSync(SVG, svgOf(r));
  try {
    execFileSync(BIOME, ['format', '--write', DOC], { stdio: 'ignore' });
  } catch {
    // Not formatted: `npm run format` does it.
  }
  return [...lines, 'written to docs/soak.md and docs/soak.svg'];
}
