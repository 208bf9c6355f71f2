// `npm run soak`: the bounded soak (soak.ts) on this machine, 10 minutes by default, with
// progress lines; its report goes to docs/soak.md with the plot docs/soak.svg (report.ts), its
// figures to a JSON file. Exits 1 when anything accepted was lost, a duplicate exceeded its
// bound, a request hung or was answered with an error it must never get (verdict.ts).
// Settings (environment, read here):
//   SOAK_MINUTES (10)  SOAK_CHAOS_EVERY_S (20)  SOAK_DOWN_S (3)
//   SOAK_CHANNELS (8)  SOAK_PUBLISH_GAP_MS (100: about 10 publishes a second per channel)
//   SOAK_SEND_GAP_MS (200)  SOAK_SUBSCRIBERS (4)  SOAK_ACTORS (2)  SOAK_GATEWAYS (2)  SOAK_EDGES (2)
//   SOAK_DRAIN_TIMEOUT_S (180)
//   SOAK_WRITE (1: update docs/soak.md and docs/soak.svg)
//   SOAK_RESULT_FILE (default soak-result.json in the temp folder)
//   SOAK_REPORT_FROM (a result file: write the report from it again, without running anything)
// The webhook receiver's certificate comes from the suite's test CA, trusted through
// NODE_EXTRA_CA_CERTS, which scripts/soak.sh sets before this starts.
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secretKeysOf } from '@lattice/cli';
import { createLogger, loadConfig } from '@lattice/core';
import { databaseUrlFor, ensureDatabase, ensureInfra } from '@lattice/infra';
import { writeReport } from './report.ts';
import { runSoak, type SoakResult, type SoakSettings } from './soak.ts';
import { verdictOf } from './verdict.ts';

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
const log = (line: string) => process.stdout.write(`soak ${line}\n`);
const resultFile = env.SOAK_RESULT_FILE ?? join(tmpdir(), 'soak-result.json');
const write = env.SOAK_WRITE !== '0';

async function main(): Promise<number> {
  let result: SoakResult;
  if (env.SOAK_REPORT_FROM) {
    result = JSON.parse(readFileSync(env.SOAK_REPORT_FROM, 'utf8')) as SoakResult;
  } else {
    const settings: SoakSettings = {
      durationMs: num('SOAK_MINUTES', 10) * 60_000,
      chaosEveryMs: num('SOAK_CHAOS_EVERY_S', 20) * 1000,
      downMs: num('SOAK_DOWN_S', 3) * 1000,
      channels: num('SOAK_CHANNELS', 8),
      publishGapMs: num('SOAK_PUBLISH_GAP_MS', 100),
      sendGapMs: num('SOAK_SEND_GAP_MS', 200),
      subscribers: num('SOAK_SUBSCRIBERS', 4),
      actors: num('SOAK_ACTORS', 2),
      gateways: num('SOAK_GATEWAYS', 2),
      edges: num('SOAK_EDGES', 2),
      drainTimeoutMs: num('SOAK_DRAIN_TIMEOUT_S', 180) * 1000,
    };
    const config = loadConfig(env);
    const logger = createLogger({ name: 'soak', level: 'error' });
    await ensureInfra({ config, logger, searchPath: env.PATH ?? '' });
    const databaseUrl = databaseUrlFor(config.databaseUrl, 'lattice_soak');
    await ensureDatabase(databaseUrl, { logger });
    log(`${settings.durationMs / 60_000} min, a fault every ${settings.chaosEveryMs / 1000} s`);
    result = await runSoak(settings, {
      databaseUrl,
      kafkaBrokers: config.kafkaBrokers,
      kafkaPartitions: config.kafkaPartitions,
      // The local data folder's (kept from run to run, as lattice_soak is).
      secretKeys: secretKeysOf(config),
      log,
    });
    writeFileSync(resultFile, JSON.stringify(result));
    log(`figures in ${resultFile}`);
  }
  for (const line of writeReport(result, write)) log(line);
  const verdict = verdictOf(result);
  for (const problem of verdict.problems) log(`FAILED: ${problem}`);
  return verdict.problems.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
