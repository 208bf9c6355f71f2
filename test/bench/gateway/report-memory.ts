// The memory part of the gateway benchmark's report: per idle connection, measured two ways and
// reconciled from the run's own readings (platform-phases.ts memoryPhase).
//   RSS delta   the server's RSS after the connections and a 2 s settle minus before them, no
//               collection forced: what the OS counts for the process, and what the goal judges.
//   live heap   V8's used heap + external memory after a full collection, minus the same before:
//               the objects and buffers the connections keep alive, nothing else.
// The RSS delta = live + garbage (what the full collection freed) + heap reserve (pages V8 holds
// and does not use) + outside V8 (RSS the heap and external memory do not account for: native
// allocations of Node, libuv and the modules, code, fragmentation).
import type { VariantName } from './messages.ts';
import type { MemoryResult } from './platform-phases.ts';

export const MEMORY_GOAL_KIB = 20;

export interface MemoryFigures {
  rss: number;
  rssCollected: number;
  live: number;
  garbage: number;
  reserve: number;
  outside: number;
}

/** KiB per connection. */
export function memoryFigures(m: MemoryResult): MemoryFigures {
  const per = (bytes: number) => bytes / m.connections / 1024;
  const { before: b, after: a } = m;
  const live = a.collected.heapUsed + a.collected.external - (b.collected.heapUsed + b.collected.external);
  const used = a.raw.heapUsed + a.raw.external - (b.raw.heapUsed + b.raw.external);
  const rss = a.raw.rss - b.raw.rss;
  return {
    rss: per(rss),
    rssCollected: per(a.collected.rss - b.collected.rss),
    live: per(live),
    garbage: per(used - live),
    reserve: per(a.raw.heapTotal - a.raw.heapUsed - (b.raw.heapTotal - b.raw.heapUsed)),
    outside: per(rss - (a.raw.heapTotal - b.raw.heapTotal) - (a.raw.external - b.raw.external)),
  };
}

const kib = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '—');

export function memoryLines(memory: Array<{ variant: VariantName } & MemoryResult>): string[] {
  if (memory.length === 0) return ['Not measured in this run.'];
  const rows = memory.map((m) => ({ variant: m.variant, connections: m.connections, f: memoryFigures(m) }));
  const lattice = rows.find((r) => r.variant === 'lattice');
  const lines = [
    '| server | connections | RSS delta (OS view) | live heap + external (after a full collection) | garbage | V8 heap reserve | outside V8 | RSS delta after the collection | goal < 20 KiB (RSS delta) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...rows.map(
      ({ variant, connections, f }) =>
        `| ${variant} | ${connections} | ${kib(f.rss)} | ${kib(f.live)} | ${kib(f.garbage)} | ${kib(f.reserve)} | ${kib(f.outside)} | ${kib(f.rssCollected)} | ${variant === 'lattice' ? (f.rss < MEMORY_GOAL_KIB ? 'meets' : 'misses') : 'reference'} |`,
    ),
    '',
    'KiB per connection. Two measurements of the same connections: the **RSS delta** is the server',
    "process's resident memory after the connections and a 2 s settle minus before them, read without",
    'forcing a collection (what the OS counts, and what the goal judges); the **live heap + external** is',
    "V8's used heap and external memory after a full collection, minus the same before: only what the",
    'connections keep alive. The columns between reconcile them: the RSS delta = live + garbage (what the',
    'full collection freed) + V8 heap reserve (heap pages V8 holds unused) + outside V8 (resident memory',
    'neither the heap nor external memory accounts for: native allocations of Node, libuv and the',
    'modules, fragmentation).',
  ];
  if (lattice) {
    const f = lattice.f;
    const others = rows
      .filter((r) => r.variant !== 'lattice')
      .map((r) => `${r.variant} ${kib(r.f.rss)} KiB by RSS delta and ${kib(r.f.live)} KiB live`);
    lines.push(
      '',
      `**Memory per idle connection (lattice): ${kib(f.rss)} KiB by RSS delta** (goal < ${MEMORY_GOAL_KIB} KiB: **${f.rss < MEMORY_GOAL_KIB ? 'met' : 'missed'}**), of which ${kib(f.live)} KiB live heap + external, ${kib(f.garbage)} KiB garbage, ${kib(f.reserve)} KiB V8 heap reserve and ${kib(f.outside)} KiB outside V8's heap; after a full collection the RSS delta is ${kib(f.rssCollected)} KiB (${f.rssCollected < f.rss ? `the collection gave ${kib(f.rss - f.rssCollected)} KiB per connection back to the OS` : 'the collection gave nothing back to the OS'}).${others.length ? ` For reference: ${others.join('; ')}.` : ''}`,
    );
  }
  return lines;
}
