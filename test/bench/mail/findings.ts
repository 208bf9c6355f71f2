// The "what bounds it" paragraph of the mail benchmark's report: every figure in it is this
// run's; what a run does not measure (profiles, earlier runs) is left out.
import type { BenchResult, Round, Summary } from './report.ts';
import { fixed, median, TARGET_CPU_FACTOR, TARGET_RATIO } from './report.ts';

/**
 * Handovers a second in a platform round while emails are still being accepted, and after the
 * last is accepted (whole seconds only; the round's last, partial second left out).
 */
function phasesOf(x: Round): { during: number; after: number } {
  const acceptedS = x.messages / x.answeredPerSecond;
  const full = x.perSecondSeries.slice(0, -1);
  const rate = (seconds: number[]) =>
    seconds.length === 0 ? Number.NaN : seconds.reduce((a, b) => a + b, 0) / seconds.length;
  return {
    during: rate(full.slice(0, Math.floor(acceptedS))),
    after: rate(full.slice(Math.ceil(acceptedS))),
  };
}

export function findings(r: BenchResult, platform: Summary, bare: Summary): string[] {
  const m = r.mailEmails;
  const l = r.latency;
  const ratio = platform.perSecond / bare.perSecond;
  const split = r.rounds.filter((x) => x.arm === 'platform').map(phasesOf);
  const during = median(split.map((x) => x.during).filter(Number.isFinite));
  const after = median(split.map((x) => x.after).filter(Number.isFinite));
  const cpuFactor = platform.machine / bare.machine;
  return [
    `- The platform rounds keep the machine ${fixed(100 * platform.busy)}% busy: they are bound by what the whole path costs per`,
    `  email, ${fixed(platform.machine)} µs of the two cores' time, against ${fixed(bare.machine)} µs for the bare loop (${fixed(cpuFactor, 2)} times as much). The bare`,
    `  loop's own process spent ${fixed(bare.generator)} µs per email (${fixed((bare.generator * bare.perSecond) / 1e6, 2)} of a core at its rate; the machine ${fixed(100 * bare.busy)}% busy).`,
    '  Both arms do the handover work: a 2048-bit RSA signature, the MIME composition and the SMTP dialogue.',
    '  The platform does it in the actors and adds the rest.',
    `- The ${TARGET_RATIO} throughput goal needs the platform ${fixed(TARGET_RATIO / ratio, 2)} times as fast as in this run; the CPU goal (at most`,
    `  ${TARGET_CPU_FACTOR} times the bare loop's CPU per email) needs its CPU per email ${fixed(cpuFactor / TARGET_CPU_FACTOR, 2)} times lower.`,
    ...(Number.isFinite(during) && Number.isFinite(after)
      ? [
          `- In the platform rounds the accepts (${fixed(platform.answered)} a second) run ahead of the handovers: while management`,
          `  accepts, the actors hand over about ${fixed(during)} emails a second; once every email is accepted, about ${fixed(after)} (the`,
          '  plot). The two sides share the cores, so the pace is set by their sum, not by either alone.',
        ]
      : []),
    `- Per email the platform ran ${fixed(platform.statementsManagement, 1)} SQL statements in management (the request's checks: member token,`,
    '  verified domain, suppression; the email row) and',
    `  ${fixed(platform.statementsActors, 1)} in the actors (the sender's load, attempt mark, signing key and outcome; the email-state actor's`,
    '  load and commit), two Kafka produces (`mail.outbound` with acks=all, `mail.events`)',
    `  and two consumes, and one Redis call. PostgreSQL's own processes spent ${fixed(platform.postgres)} µs per email. The`,
    `  ${fixed(m.updatesPerEmail, 1)} UPDATEs per email of its \`mail_emails\` row (the sender's and the email-state actor's) were ${fixed(100 * m.hotShare)}% HOT:`,
    '  the columns they change (`send_state`, `status`, `send_attempts`, `last_event_type`) are in partial-index',
    `  predicates, so each writes a new row version (${m.rowBytes} bytes, the html compressed inline) and an entry in`,
    '  every index.',
    `- Accept latency: at ${l.rate} sends a second the machine is ${fixed(100 * l.cpu.machineBusy)}% busy; per email management spends`,
    `  ${fixed(l.cpu.management)} µs and the actors ${fixed(l.cpu.actors)} µs here, against ${fixed(platform.management)} and ${fixed(platform.actors)} at full load, and the broker`,
    `  ${fixed(l.cpu.kafka)} µs (${fixed(platform.kafka)} at full load): at a low rate each email pays alone for fetches, offset commits and`,
    '  produce requests that a full round shares. Behind its HTTP request an accept makes its statements,',
    '  one Redis call and a Kafka produce with acks=all in sequence, each waiting its turn on the cores',
    `  shared with the actors, PostgreSQL and Kafka. Its p50 is ${fixed(l.p50Ms, 1)} ms; per phase, p99 ranged from`,
    `  ${fixed(Math.min(...l.phases.map((p) => p.p99Ms)), 1)} to ${fixed(Math.max(...l.phases.map((p) => p.p99Ms)), 1)} ms: the tail follows what else the cores do, hence several phases per run.`,
  ];
}
