// `npm run chaos` (scripts/chaos.sh): the chaos run (chaos-run.ts) on this machine over backing
// services of its own, with progress lines; its report goes to docs/soak.md ("Chaos"), the plot
// docs/chaos.svg and the summary docs/chaos.json (report.ts), its raw figures to a JSON file.
// Exits 1 on a violation (an answer other than a 2xx or a documented refusal, a dropped
// connection, a request unanswered), anything accepted lost, a duplicate beyond its bound, a
// service that did not come back; 130 when interrupted. Ctrl-C stops everything it started
// (twice: at once, by SIGKILL).
// Settings (environment, read here):
//   CHAOS_FAULT_SECONDS (30: each backing service stopped)  CHAOS_KILL_DOWN_SECONDS (3)
//   CHAOS_PAUSE_SECONDS (30: after each return)  CHAOS_WARMUP_SECONDS (30: the baseline)
//   CHAOS_TARGETS (redis,postgres,kafka,management-1,edge-1,gateway-1,actors-1[,inbound-1])
//   CHAOS_CHANNELS (8)  CHAOS_PUBLISH_GAP_MS (100)  CHAOS_SEND_GAP_MS (200)  CHAOS_SUBSCRIBERS (4)
//   CHAOS_ACTORS (2)  CHAOS_GATEWAYS (2)  CHAOS_EDGES (2)  CHAOS_PARTITIONS (12)
//   CHAOS_PROBE_EVERY_MS (500)  CHAOS_DRAIN_TIMEOUT_S (180)
//   CHAOS_WRITE (1: update docs/soak.md, docs/chaos.svg, docs/chaos.json)
//   CHAOS_RESULT_FILE (default chaos-result.json in the run's log folder)
//   CHAOS_REPORT_FROM (a result file: write the report from it again, without running anything)
// The roles' logs (warn and above) and the backing services' own logs are kept in
// .lattice/chaos-logs/<start time>/.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger, generateSecretKeyEntry } from '@lattice/core';
import { logToFile } from '@lattice/core/testing';
import { type Backing, startBacking, sweepStaleRuns } from './backing.ts';
import { type ChaosResult, type ChaosSettings, defaultTargets, INBOUND_ROLE, runChaos } from './chaos-run.ts';
import { Cleanup, killOwnChildren } from './cleanup.ts';
import { verdictOf, writeReport } from './report.ts';

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
const log = (line: string) => process.stdout.write(`chaos ${line}\n`);
const write = env.CHAOS_WRITE !== '0';
const LOG_ROOT = fileURLToPath(new URL('../../.lattice/chaos-logs/', import.meta.url));

function settingsOf(): ChaosSettings {
  return {
    faultMs: num('CHAOS_FAULT_SECONDS', 30) * 1000,
    killDownMs: num('CHAOS_KILL_DOWN_SECONDS', 3) * 1000,
    pauseMs: num('CHAOS_PAUSE_SECONDS', 30) * 1000,
    warmupMs: num('CHAOS_WARMUP_SECONDS', 30) * 1000,
    targets: env.CHAOS_TARGETS
      ? env.CHAOS_TARGETS.split(',').map((t) => t.trim())
      : defaultTargets(INBOUND_ROLE),
    channels: num('CHAOS_CHANNELS', 8),
    publishGapMs: num('CHAOS_PUBLISH_GAP_MS', 100),
    sendGapMs: num('CHAOS_SEND_GAP_MS', 200),
    subscribers: num('CHAOS_SUBSCRIBERS', 4),
    actors: num('CHAOS_ACTORS', 2),
    gateways: num('CHAOS_GATEWAYS', 2),
    edges: num('CHAOS_EDGES', 2),
    partitions: num('CHAOS_PARTITIONS', 12),
    probeEveryMs: num('CHAOS_PROBE_EVERY_MS', 500),
    drainTimeoutMs: num('CHAOS_DRAIN_TIMEOUT_S', 180) * 1000,
  };
}

function report(result: ChaosResult): number {
  for (const line of writeReport(result, write)) log(line);
  const { problems } = verdictOf(result);
  for (const problem of problems) log(`FAILED: ${problem}`);
  return problems.length === 0 ? 0 : 1;
}

async function main(): Promise<number> {
  if (env.CHAOS_REPORT_FROM) {
    return report(JSON.parse(readFileSync(env.CHAOS_REPORT_FROM, 'utf8')) as ChaosResult);
  }
  const settings = settingsOf();
  const logDir = join(LOG_ROOT, new Date().toISOString().replace(/[:.]/g, '-'));
  mkdirSync(logDir, { recursive: true });
  // What the role processes print (warn and above) and this process's own loggers go to a file.
  logToFile(join(logDir, 'roles.log'));
  const resultFile = env.CHAOS_RESULT_FILE ?? join(logDir, 'chaos-result.json');
  const logger = createLogger({ name: 'chaos', level: 'warn' });
  const cleanup = new Cleanup(log);
  const abort = new AbortController();
  let backing: Backing | null = null;
  let signals = 0;
  const interrupted = (signal: NodeJS.Signals) => {
    signals++;
    if (signals === 1) {
      log(`${signal}: stopping everything this run started (again to kill it all at once)`);
      abort.abort();
      void cleanup.run().finally(() => process.exit(130));
      return;
    }
    log(`${signal} again: SIGKILL to every process this run started`);
    void (async () => {
      await killOwnChildren(log);
      if (backing) await rm(backing.dir, { recursive: true, force: true }).catch(() => undefined);
      process.exit(130);
    })();
  };
  process.on('SIGINT', interrupted);
  process.on('SIGTERM', interrupted);

  try {
    await sweepStaleRuns(logger, log);
    log(
      `faults: ${settings.targets.join(', ')}; backing services down ${settings.faultMs / 1000} s, ` +
        `killed roles ${settings.killDownMs / 1000} s, ${settings.pauseMs / 1000} s after each return; logs in ${logDir}`,
    );
    const bootMs = Date.now();
    backing = await startBacking({ logger, searchPath: env.PATH ?? '', partitions: settings.partitions });
    const own = backing;
    cleanup.add('backing services', () => own.close(logDir));
    log(
      `PostgreSQL, Redis and a Kafka broker of the run's own up in ${((Date.now() - bootMs) / 1000).toFixed(1)} s ` +
        `(${backing.databaseUrl}, ${backing.redisUrl}, ${backing.kafkaBrokers.join(',')}; ${backing.dir})`,
    );
    const result = await runChaos(settings, {
      backing,
      secretKeys: generateSecretKeyEntry(),
      cleanup,
      signal: abort.signal,
      logDir,
      log,
    });
    writeFileSync(resultFile, JSON.stringify(result));
    log(`figures in ${resultFile}`);
    await cleanup.run();
    log('every process the run started is stopped, its temporary folder removed');
    return report(result);
  } catch (err) {
    if (abort.signal.aborted) return new Promise<number>(() => undefined); // the handler exits
    log(`failed: ${String((err as Error).stack ?? err)}`);
    await cleanup.run();
    return 1;
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
