// Each benchmark owns one section of docs/benchmarks.md, between its start and end markers, so
// running one leaves the others' sections as they are. A page without the section gets it
// appended. A run with BENCH_WRITE=0 leaves the page alone and writes its section to a file in
// the temp folder instead, to be read.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DOC = fileURLToPath(new URL('../../../docs/benchmarks.md', import.meta.url));
const BIOME = fileURLToPath(new URL('../../../node_modules/.bin/biome', import.meta.url));
const NEW_PAGE =
  '# Benchmarks\n\nMeasured on the project machine; each section names the command that produced it.\n\n';

export function withSection(doc: string, start: string, end: string, section: string): string {
  const at = doc.indexOf(start);
  const to = doc.indexOf(end);
  return at >= 0 && to > at
    ? doc.slice(0, at) + section + doc.slice(to + end.length)
    : `${doc.trimEnd()}\n\n${section}\n`;
}

/**
 * Puts `section` into docs/benchmarks.md between its markers, then formats the page as `npm run
 * format` would (aligned tables), so the suite's lint stays clean after a benchmark run.
 */
export function writeBenchmarkSection(start: string, end: string, section: string): void {
  let doc: string;
  try {
    doc = readFileSync(DOC, 'utf8');
  } catch {
    doc = NEW_PAGE;
  }
  writeFileSync(DOC, withSection(doc, start, end, section));
  try {
    execFileSync(BIOME, ['format', '--write', DOC], { stdio: 'ignore' });
  } catch {
    // Not formatted: `npm run format` does it.
  }
}

/** Writes `section` to `bench-<name>-section.md` in the temp folder; returns the path. */
export function previewBenchmarkSection(name: string, section: string): string {
  const path = join(tmpdir(), `bench-${name}-section.md`);
  writeFileSync(path, `${section}\n`);
  return path;
}
