// Mocha "require", loaded before global-infra.ts: everything the services under test log (and
// what child processes print) goes to one file per run instead of between the reporter's lines.
// LATTICE_TEST_LOG picks the file; by default .lattice/test-logs/<start time>-<pid>.log
// (git-ignored), keeping the last KEEP_RUNS runs. The summary reporter names the file when a
// test fails.
import { readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { logToFile } from '@lattice/core/testing';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LOG_DIR = join(REPO_ROOT, '.lattice', 'test-logs');
const KEEP_RUNS = 10;

function newRunFile(): string {
  let old: string[] = [];
  try {
    // Start times sort as text, oldest first.
    old = readdirSync(LOG_DIR)
      .filter((f) => f.endsWith('.log'))
      .sort();
  } catch {
    // No directory yet: nothing to prune.
  }
  for (const f of old.slice(0, Math.max(0, old.length - (KEEP_RUNS - 1)))) {
    rmSync(join(LOG_DIR, f), { force: true });
  }
  const started = new Date().toISOString().replace(/[:.]/g, '-');
  return join(LOG_DIR, `${started}-${process.pid}.log`);
}

const file = resolve(process.env.LATTICE_TEST_LOG || newRunFile());
logToFile(file);
// How the reporter (loaded by mocha, not by this module) finds the file.
process.env.LATTICE_TEST_LOG = file;
