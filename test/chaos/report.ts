// The chaos run's report: a section of its own at the end of docs/soak.md ("Chaos", between the
// soak's CHAOS_SECTION_MARK and the end of the page, which the soak's report keeps), the plot
// docs/chaos.svg (plot.ts) and the summary docs/chaos.json.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CHAOS_SECTION_MARK } from '../soak/report.ts';
import { accountingProblems, type Bounds } from '../soak/verdict.ts';
import type { ChaosResult } from './chaos-run.ts';
import type { FaultEvent } from './faults.ts';
import { svgOf } from './plot.ts';
import {
  type ChaosFigures,
  DELIVERY_STREAMS,
  figuresOf,
  REQUEST_STREAMS,
  type RefusalTime,
  type RequestStream,
  type StreamAnswers,
} from './windows.ts';

const DOC = fileURLToPath(new URL('../../docs/soak.md', import.meta.url));
const SVG = fileURLToPath(new URL('../../docs/chaos.svg', import.meta.url));
const JSON_FILE = fileURLToPath(new URL('../../docs/chaos.json', import.meta.url));
const BIOME = fileURLToPath(new URL('../../node_modules/.bin/biome', import.meta.url));

/** The SMTP pool of one actor host (SMTP_POOL_MAX_CONNECTIONS' default), as the soak's bound. */
const SMTP_POOL = 5;

const s1 = (ms: number) => (ms / 1000).toFixed(1);
const orDash = (x: number | null) => (x === null ? 'never' : x.toFixed(1));

/**
 * Duplicates the docs allow (operations.md "The soak", mail.md "Handover guarantee",
 * webhooks.md): a publish twice in history only when Redis lost a retried publish's
 * Idempotency-Key record (a channel's one message in flight per Redis fault); a second copy at
 * the smart host or a repeated webhook attempt only when an actor host died or its partitions
 * moved (the broker's return rejoins the group) inside an attempt: the SMTP pool, one delivery in
 * flight per endpoint.
 */
export function boundsOf(r: ChaosResult): Bounds {
  const hits = (p: (e: FaultEvent) => boolean) => r.faults.filter(p).length;
  const redis = hits((e) => e.target === 'redis');
  const moves = hits((e) => e.target === 'kafka' || e.target.startsWith('actors'));
  return { publishes: r.settings.channels * redis, emails: SMTP_POOL * moves, webhooks: moves };
}

export function verdictOf(
  r: ChaosResult,
  f: ChaosFigures = figuresOf(r),
): { problems: string[]; bounds: Bounds } {
  const bounds = boundsOf(r);
  const problems = accountingProblems(r.accounting, bounds);
  if (f.baseline.violations > 0) problems.push(`violations before the first fault: ${f.baseline.violations}`);
  for (const x of f.faults) {
    if (x.violations > 0)
      problems.push(`violations during fault ${x.n} (${label(x.event)}): ${x.violations}`);
    if (x.event.problem)
      problems.push(`${x.event.target} did not come back: ${x.event.problem.slice(0, 200)}`);
  }
  if (!r.drainedInTime) problems.push(`not drained within ${r.settings.drainTimeoutMs / 1000} s`);
  return { problems, bounds };
}

function label(e: FaultEvent): string {
  const names: Record<string, string> = { redis: 'Redis', postgres: 'PostgreSQL', kafka: 'the Kafka broker' };
  return e.kind === 'backing' ? `${names[e.target] ?? e.target} stopped` : `${e.target} SIGKILLed`;
}

function bag(b: Record<string, number>): string {
  return Object.entries(b)
    .sort((x, y) => y[1] - x[1])
    .map(([k, n]) => `${n} × ${k}`)
    .join(', ');
}

/** `publishes: 12 × 503 publish_unavailable; sends: …`, or 0. */
function perStream(
  answers: Record<RequestStream, StreamAnswers>,
  pick: (a: StreamAnswers) => string,
): string {
  const parts = REQUEST_STREAMS.map((s) => [s, pick(answers[s])] as const).filter(([, text]) => text !== '');
  return parts.length > 0 ? parts.map(([s, text]) => `${s}: ${text}`).join('; ') : '0';
}

function answersRow(
  n: string,
  what: string,
  at: string,
  down: string,
  a: Record<RequestStream, StreamAnswers>,
  refusalTime: RefusalTime | null,
) {
  const sum = (p: (x: StreamAnswers) => number) => REQUEST_STREAMS.reduce((k, s) => k + p(a[s]), 0);
  const noRetryAfter = sum((x) => x.withoutRetryAfter);
  return `| ${n} | ${what} | ${at} | ${down} | ${sum((x) => x.attempts)} | ${sum((x) => x.ok)} | ${perStream(a, (x) => bag(x.refused))}${noRetryAfter > 0 ? ` (${noRetryAfter} 503s without Retry-After)` : ''} | ${refusalTime ? `${refusalTime.median.toFixed(2)} / ${refusalTime.max.toFixed(2)}` : '—'} | ${perStream(a, (x) => (x.toKilled > 0 ? String(x.toKilled) : ''))} | ${perStream(a, (x) => bag(x.violations))} |`;
}

export function markdownOf(r: ChaosResult, f: ChaosFigures = figuresOf(r)): string {
  const st = r.settings;
  const a = r.accounting;
  const { problems, bounds } = verdictOf(r, f);
  const roles = (kind: string) => r.processes.filter((p) => p.startsWith(kind)).length;
  const streams = [...REQUEST_STREAMS, ...DELIVERY_STREAMS];
  return [
    CHAOS_SECTION_MARK,
    '',
    '## Chaos',
    '',
    `Written by \`npm run chaos\` (test/chaos/) on ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC, apart from the soak above; the figures are also in [chaos.json](chaos.json).`,
    '',
    `**${problems.length === 0 ? 'Passed' : 'Failed'}**: ${problems.length === 0 ? 'every answer during every fault was a 2xx or a documented refusal, nothing accepted was lost, every duplicate within its bound, every service came back.' : problems.join('; ')}`,
    '',
    `Processes: ${roles('actors')} actor hosts, ${roles('edge')} edges, ${roles('gateway')} gateways, ${roles('management')} management API${roles('inbound') > 0 ? `, ${roles('inbound')} inbound receiver` : ''}, each its own \`lattice start ROLE\`, over a PostgreSQL (\`initdb\` in a temporary folder), a Redis and a single Kafka broker of the run's own, on ports of their own.`,
    `${r.skipped.length > 0 ? `Left out: ${r.skipped.join('; ')}. ` : ''}Traffic: the soak's (${st.channels} channels published to every ${st.publishGapMs} ms each, ${st.subscribers} WebSocket subscribers on every channel, an email every ${st.sendGapMs} ms to a local SMTP smart host, a webhook endpoint for \`email.delivered\` on an HTTPS receiver), plus two read probes every ${st.probeEveryMs} ms (a namespace from the management API, a channel's history from the edges).`,
    `Faults, one at a time after ${st.warmupMs / 1000} s of baseline: Redis, PostgreSQL and the Kafka broker each stopped as an operator stops them (SIGTERM; PostgreSQL SIGINT, its fast shutdown; Redis saves its keys) and started again ${st.faultMs / 1000} s after the stop; then each role process SIGKILLed and started again ${st.killDownMs / 1000} s after it died; ${st.pauseMs / 1000} s of plain traffic after each return. ${s1(r.loadMs)} s of traffic, then ${s1(r.drainMs)} s until everything accepted had arrived everywhere (${r.drainedInTime ? 'within' : 'NOT within'} the ${st.drainTimeoutMs / 1000} s bound).`,
    '',
    '### Answers during each fault',
    '',
    "Every request whose attempt began in the fault's window (from the fault to the next one). Documented refusals: 503 with a `*_unavailable` code, 429, 409 `idempotency_key_in_use` (a retry while the first attempt is still in flight). To the killed process: connections refused or cut by the process the fault SIGKILLed, while it was down (the clients retried on the other edge). Violations: any other status (a 500, an undocumented 503), a connection refused or dropped by a process that was up, a request unanswered within 15 s.",
    '',
    '| # | fault | at s | back after s | requests | 2xx | documented refusals | refusals answered after s (median / slowest) | to the killed process | violations |',
    '| ---: | --- | ---: | ---: | ---: | ---: | --- | ---: | --- | --- |',
    answersRow('0', 'none (baseline)', '0.0', '—', f.baseline.answers, f.baseline.refusalTimeS),
    ...f.faults.map((x) =>
      answersRow(
        String(x.n),
        label(x.event),
        s1(x.event.atMs),
        x.event.backAtMs === null ? 'never back' : s1(x.event.backAtMs - x.event.atMs),
        x.answers,
        x.refusalTimeS,
      ),
    ),
    '',
    '### Recovery after each return',
    '',
    "From the service's return (the backing service answering again, the restarted process ready), per stream: the first success, then when it was back to normal for at least 5 s (requests: at least 95 % of a 3 s window answered 2xx, at 80 % of the baseline's rate or more; what is delivered: the oldest message, email or event not yet delivered no older than twice the baseline's worst, at least 2 s). Full service: the slowest stream. Each cell: first success / normal, in seconds after the return. The last column: how old the oldest message (at the slowest subscriber), email (at the smart host) or event (at the webhook receiver) not yet delivered got during the window, the fault's impact where it was over before the return (an actor host's partitions move on after 6 s).",
    '',
    `Baseline: ${REQUEST_STREAMS.map((s) => `${s} ${f.baseline.okPerSecond[s].toFixed(1)}/s`).join(', ')}; the oldest not yet delivered at worst: ${DELIVERY_STREAMS.map((s) => `${s} ${f.baseline.worstDelayS[s].toFixed(1)} s`).join(', ')}.`,
    '',
    `| # | fault | back after s | full service after s | ${streams.join(' | ')} | oldest undelivered at worst, s (${DELIVERY_STREAMS.join(' / ')}) |`,
    `| ---: | --- | ---: | ---: | ${streams.map(() => '---:').join(' | ')} | ---: |`,
    ...f.faults.map((x) => {
      const back = x.event.backAtMs === null ? 'never' : s1(x.event.backAtMs - x.event.atMs);
      const cells = x.recovery.map((rec) => `${orDash(rec.firstSuccessS)} / ${orDash(rec.normalS)}`);
      const worst = DELIVERY_STREAMS.map((d) => x.worstDelayS[d].toFixed(1)).join(' / ');
      return `| ${x.n} | ${label(x.event)} | ${back} | ${orDash(x.fullServiceS)} | ${cells.join(' | ')} | ${worst} |`;
    }),
    '',
    '### Accounting',
    '',
    'As the soak counts it ([operations.md, "The soak"](operations.md#the-soak)), with the bounds of the faults above: a publish twice in history only after a Redis fault (channels × Redis faults); a second copy at the smart host, counted by the sender, or a repeated webhook attempt only after an actor host died or the broker came back (5 × and 1 × those faults).',
    '',
    '| what | accepted | applied | delivered | lost | duplicated (bound) |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    `| realtime publishes | ${a.publishes.accepted} | ${a.publishes.applied} in history | — | ${a.publishes.lost} | ${a.publishes.duplicated} in history (${bounds.publishes}) |`,
    `| messages at the subscribers | — | ${a.subscribers.expected} expected | ${a.subscribers.delivered} | ${a.subscribers.lost} | ${a.subscribers.duplicated} (0) |`,
    `| emails | ${a.emails.accepted} | ${a.emails.applied} delivered | ${a.emails.handedOver} at the smart host | ${a.emails.lost} | ${a.emails.duplicated} copies, ${a.emails.duplicatesCounted} counted by the sender (${bounds.emails}) |`,
    `| webhook deliveries | — | ${a.webhooks.expected} expected | ${a.webhooks.delivered} | ${a.webhooks.lost} | ${a.webhooks.duplicated} repeated attempts (${bounds.webhooks}), ${a.webhooks.duplicatedEvents} events twice (0) |`,
    '',
    `Order: ${a.publishes.outOfOrder} publishes out of order in history, ${a.publishes.offsetFaults} offset faults, ${a.publishes.idMismatches} 202 ids not the history's; at the subscribers ${a.subscribers.outOfOrder} out of order, ${a.subscribers.unrecovered} recoveries answered \`recovered: false\`, ${a.subscribers.disconnects} \`disconnected\` events. Answered without a 202 but applied all the same: ${a.publishes.landedUnanswered} publishes, ${a.emails.landedUnanswered} emails.`,
    '',
    '![success rate, latency, throughput and delivery delay over time, faults shaded](chaos.svg)',
    '',
  ].join('\n');
}

/** The summary written beside the page: what the tables say, as data. */
export function summaryOf(r: ChaosResult, f: ChaosFigures = figuresOf(r)) {
  const { problems, bounds } = verdictOf(r, f);
  const a = r.accounting;
  const round = (x: number | null) => (x === null ? null : Math.round(x * 10) / 10);
  return {
    writtenBy: 'npm run chaos (test/chaos/)',
    startedAt: r.startedAt,
    passed: problems.length === 0,
    problems,
    settings: r.settings,
    processes: r.processes,
    skipped: r.skipped,
    loadS: round(r.loadMs / 1000),
    drainS: round(r.drainMs / 1000),
    drainedInTime: r.drainedInTime,
    violations: f.violations,
    baseline: f.baseline,
    faults: f.faults.map((x) => ({
      n: x.n,
      target: x.event.target,
      action: x.event.action,
      atS: round(x.event.atMs / 1000),
      goneAfterS: x.event.goneAtMs === null ? null : round((x.event.goneAtMs - x.event.atMs) / 1000),
      backAfterS: x.event.backAtMs === null ? null : round((x.event.backAtMs - x.event.atMs) / 1000),
      windowS: [round(x.fromMs / 1000), round(x.toMs / 1000)],
      answers: x.answers,
      refusalTimeS: x.refusalTimeS,
      worstDelayS: x.worstDelayS,
      violations: x.violations,
      recovery: Object.fromEntries(
        x.recovery.map((rec) => [
          rec.stream,
          { firstSuccessS: round(rec.firstSuccessS), normalS: round(rec.normalS) },
        ]),
      ),
      fullServiceS: round(x.fullServiceS),
      problem: x.event.problem,
    })),
    totals: {
      lost: {
        publishes: a.publishes.lost,
        atSubscribers: a.subscribers.lost,
        emails: a.emails.lost,
        webhooks: a.webhooks.lost,
      },
      duplicated: {
        publishesInHistory: a.publishes.duplicated,
        atSubscribers: a.subscribers.duplicated,
        emailCopies: a.emails.duplicated,
        emailCopiesCounted: a.emails.duplicatesCounted,
        webhookAttemptsRepeated: a.webhooks.duplicated,
        webhookEventsTwice: a.webhooks.duplicatedEvents,
      },
      bounds,
    },
    accounting: a,
  };
}

export function writeReport(r: ChaosResult, write: boolean): string[] {
  const f = figuresOf(r);
  const a = r.accounting;
  const lines = [
    `publishes: ${a.publishes.accepted} accepted, ${a.publishes.lost} lost, ${a.publishes.duplicated} twice in history`,
    `subscribers: ${a.subscribers.delivered} of ${a.subscribers.expected} delivered, ${a.subscribers.lost} lost`,
    `emails: ${a.emails.accepted} accepted, ${a.emails.handedOver} at the smart host, ${a.emails.lost} lost, ${a.emails.duplicated} copies (${a.emails.duplicatesCounted} counted)`,
    `webhooks: ${a.webhooks.delivered} of ${a.webhooks.expected} delivered, ${a.webhooks.lost} lost, ${a.webhooks.duplicated} repeated`,
    ...f.faults.map(
      (x) =>
        `fault ${x.n} ${label(x.event)}: ${REQUEST_STREAMS.reduce((n, s) => n + x.answers[s].attempts - x.answers[s].ok, 0)} non-2xx, ${x.violations} violations, back after ${x.event.backAtMs === null ? 'never' : s1(x.event.backAtMs - x.event.atMs)} s, full service ${orDash(x.fullServiceS)} s later`,
    ),
  ];
  if (!write) return [...lines, 'report not written (CHAOS_WRITE=0)'];
  const page = existsSync(DOC) ? readFileSync(DOC, 'utf8') : '';
  const kept = page.includes(CHAOS_SECTION_MARK) ? page.slice(0, page.indexOf(CHAOS_SECTION_MARK)) : page;
  writeFileSync(DOC, `${kept.trimEnd()}\n\n${markdownOf(r, f)}`);
  writeFileSync(SVG, svgOf(r, f));
  writeFileSync(JSON_FILE, `${JSON.stringify(summaryOf(r, f), null, 2)}\n`);
  try {
    execFileSync(BIOME, ['format', '--write', DOC, JSON_FILE], { stdio: 'ignore' });
  } catch {
    // Not formatted: `npm run format` does it.
  }
  return [...lines, 'written to docs/soak.md ("Chaos"), docs/chaos.svg and docs/chaos.json'];
}
