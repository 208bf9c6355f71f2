// `tsx test/bench/support/cpu-profile-summary.ts FILE.cpuprofile [TOP]`: where a V8 CPU profile
// (node --cpu-prof, e.g. BENCH_CPU_PROF_DIR of bench:latency) spent its time: self time by
// function and by package or project folder, highest first. For finding what to change on a hot
// path before changing it.
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: cpu-profile-summary FILE.cpuprofile [TOP]');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
for (const [i, id] of profile.samples.entries()) {
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

function place(url: string): string {
  if (url === '') return '(native or idle)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const own = /\/(shared|services|test)\/([^/]+)\//.exec(url);
  if (own) return `${own[1]}/${own[2]}`;
  if (url.startsWith('node:')) return 'node';
  return url;
}

const byFunction = new Map<string, number>();
const byPlace = new Map<string, number>();
for (const [id, us] of selfUs) {
  const n = byId.get(id)!;
  const where = place(n.callFrame.url);
  const name = `${n.callFrame.functionName || '(anonymous)'} ${where}:${n.callFrame.lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  byPlace.set(where, (byPlace.get(where) ?? 0) + us);
}
const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)} %`;
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled`);
console.log('\nby package or folder:');
for (const [k, us] of [...byPlace].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${k}`);
console.log('\nby function (self):');
for (const [k, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`${pct(us)}  ${k}`);
