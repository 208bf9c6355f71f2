// Kafka comes from Maven Central (the one artifact source every Java machine can reach) rather
// than a tarball mirror: Maven resolves kafka_2.13 and its runtime jars into infra/.cache.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@lattice/core';
import { KAFKA_POM_FILE } from './paths.ts';

/** Keep in step with infra/kafka/pom.xml and infra/docker-compose.yml. */
export const KAFKA_VERSION = '3.9.1';

/** Written last, so a half-finished fetch is never mistaken for a complete one. */
const STAMP_FILE = '.lattice-fetched';

export interface KafkaFetchOptions {
  libsDir: string;
  logger: Logger;
  pomFile?: string;
  mvnCommand?: string;
  progressEveryMs?: number;
}

export interface KafkaFetchResult {
  libsDir: string;
  fetched: boolean;
  elapsedMs: number;
}

/** The stamp names the pom's content, so editing the pom (a version bump) triggers a refetch. */
async function pomDigest(pomFile: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(pomFile))
    .digest('hex');
}

function run(command: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const output = `${stdout}${stderr}`;
      if (!err) return resolve({ code: 0, output });
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return reject(new Error(`"${command}" not found: install Maven 3 and Java 17+`));
      resolve({ code: typeof code === 'number' ? code : 1, output });
    });
  });
}

/** Makes sure the Kafka jars are in libsDir; a no-op (fetched: false) when they already are. */
export async function ensureKafkaLibs(opts: KafkaFetchOptions): Promise<KafkaFetchResult> {
  const { libsDir, logger, pomFile = KAFKA_POM_FILE, mvnCommand = 'mvn', progressEveryMs = 10_000 } = opts;
  const startedMs = Date.now();
  const digest = await pomDigest(pomFile);
  const stamp = await readFile(join(libsDir, STAMP_FILE), 'utf8').catch(() => '');
  if (stamp.trim() === digest) return { libsDir, fetched: false, elapsedMs: Date.now() - startedMs };

  // Fetch beside the target and swap at the end: an interrupted fetch leaves the old jars usable.
  const partial = `${libsDir}.partial`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  logger.info({ version: KAFKA_VERSION, libsDir }, 'fetching Kafka from Maven Central (first run only)');
  const progress = setInterval(() => {
    logger.info({ waitedS: Math.round((Date.now() - startedMs) / 1000) }, 'still fetching Kafka jars');
  }, progressEveryMs);
  let result: { code: number; output: string };
  try {
    result = await run(mvnCommand, [
      '-q',
      '-B',
      '-f',
      pomFile,
      'dependency:copy-dependencies',
      '-DincludeScope=runtime',
      `-DoutputDirectory=${partial}`,
    ]);
  } finally {
    clearInterval(progress);
  }
  if (result.code !== 0) {
    const tail = result.output.trimEnd().split('\n').slice(-20).join('\n');
    throw new Error(`fetching Kafka with Maven failed (exit ${result.code}):\n${tail}`);
  }
  await writeFile(join(partial, STAMP_FILE), `${digest}\n`);
  await rm(libsDir, { recursive: true, force: true });
  await rename(partial, libsDir);
  const elapsedMs = Date.now() - startedMs;
  logger.info({ elapsedMs, libsDir }, 'Kafka jars fetched');
  return { libsDir, fetched: true, elapsedMs };
}
