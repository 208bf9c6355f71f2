// Growing the channel command topic while it is used (docs/operations.md "Changing the partition
// count"): 20 channels × 200 messages are published through the management API, one channel's
// messages strictly one after another, while `lattice topics scale realtime.channel-commands
// --partitions 24` runs and one of the two actors processes is SIGKILLed (and replaced). Every
// channel ends with offsets 1..200, each message exactly once, in publish order. Publishes held
// while the old partitions drain may be refused with 503 and Retry-After; the publisher retries
// them with the same Idempotency-Key, as a client would. The last fifth of each channel's
// messages waits until the producers hold their sends (step 3), so that some are published
// while held and after the switch, however fast the machine publishes the rest.
import type { ChildProcess } from 'node:child_process';
import { createLogger } from '@lattice/core';
import { noteInTestLog, testConfig, uniqueName } from '@lattice/core/testing';
import { createKafka } from '@lattice/kafka';
import { expect } from 'chai';
import { freePort, lattice, run, startPlatform, stopPlatform } from '../support/lattice-process.ts';
import { waitUntil } from '../support/wait-until.ts';

const CHANNELS = 20;
const MESSAGES = 200;
const FROM = 12;
const TO = 24;

describe('partition scaling: the channel command topic grows from 12 to 24 partitions under load', function () {
  this.timeout(300_000);
  const config = testConfig();
  const prefix = `${uniqueName('scale')}.`;
  const children: ChildProcess[] = [];
  let env: Record<string, string>;
  let baseUrl: string;
  let token: string;

  async function startRole(role: 'management' | 'actors'): Promise<ChildProcess> {
    const { child } = await startPlatform(
      { ...env, ACTORS_PORT: String(await freePort()) },
      [role],
      `${role} role running`,
    );
    children.push(child);
    return child;
  }

  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
    return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> };
  };

  before(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    env = {
      KAFKA_TOPIC_PREFIX: prefix,
      KAFKA_PARTITIONS: String(FROM),
      REDIS_KEY_PREFIX: `${prefix}`.replace(/\.$/, ':'),
      MANAGEMENT_PORT: String(port),
      LATTICE_SECRET_KEYS: config.secretKeys,
      ACTORS_SESSION_TIMEOUT_MS: '6000',
      ACTORS_METADATA_MAX_AGE_MS: '2000',
      KAFKA_PARTITION_PLAN_LEASE_MS: '5000',
      // 20 publishers in a burst go past the default product quota; the quota is not under test.
      REALTIME_PUBLISH_SUSTAINED_PER_SECOND: '100000',
      REALTIME_PUBLISH_BURST: '1000000',
      REALTIME_PUBLISH_HARD_LIMIT: '1000000',
    };
    const boot = await run(['bootstrap', '--product', uniqueName('scaling')], env);
    expect(boot.code, boot.stderr).to.equal(0);
    token = (JSON.parse(boot.stdout) as { owner_token: string }).owner_token;
    await startRole('actors');
    await startRole('actors');
    await startRole('management');
    const ns = await api('PUT', '/realtime/namespaces/scale', {
      presence: false,
      client_events: false,
      history_window_seconds: 86_400,
      archive_days: 0,
    });
    expect(ns.status).to.be.oneOf([200, 201]);
  });
  after(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) await stopPlatform(c);
  });

  it('keeps every channel’s offsets dense, each message once, in publish order', async () => {
    let accepted = 0;
    let refused = 0;
    let holding: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const publishChannel = async (c: number) => {
      for (let seq = 0; seq < MESSAGES; seq++) {
        if (seq === (4 * MESSAGES) / 5) await held;
        for (;;) {
          const r = await api(
            'POST',
            '/realtime/messages',
            { channel: `scale:c${c}`, data: { seq } },
            { 'idempotency-key': `c${c}-m${seq}` },
          );
          if (r.status === 202) break;
          expect(r.status, JSON.stringify(r.json)).to.equal(503);
          expect(r.headers.get('retry-after'), 'a 503 says when to retry').to.match(/^\d+$/);
          refused++;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        accepted++;
      }
    };
    const publishing = Promise.all(Array.from({ length: CHANNELS }, (_, c) => publishChannel(c)));
    const total = CHANNELS * MESSAGES;

    await waitUntil('a fifth published', () => accepted >= total / 5, 120_000);
    const scaler = lattice(['topics', 'scale', 'realtime.channel-commands', '--partitions', String(TO)], env);
    const scaled = { code: null as number | null, stdout: '', stderr: '' };
    scaler.stdout!.on('data', (d) => (scaled.stdout += d));
    scaler.stderr!.on('data', (d) => {
      scaled.stderr += d;
      if (scaled.stderr.includes('3/5 producers hold their sends')) holding();
    });
    const scaling = new Promise<void>((resolve) =>
      scaler.on('exit', (code) => {
        scaled.code = code;
        holding();
        resolve();
      }),
    );
    await waitUntil('two fifths published', () => accepted >= (2 * total) / 5, 120_000);
    children[0]!.kill('SIGKILL');
    noteInTestLog(`partition scaling: actors process SIGKILLed at ${accepted} accepted`);
    await startRole('actors');

    await scaling;
    expect(scaled.code, scaled.stderr).to.equal(0);
    expect(JSON.parse(scaled.stdout.trim().split('\n').at(-1)!)).to.deep.equal({
      topic: 'realtime.channel-commands',
      from: FROM,
      to: TO,
    });
    expect(scaled.stderr).to.match(/4\/5 old partitions drain: done/);
    noteInTestLog(`partition scaling: lattice topics scale said\n${scaled.stderr}`);
    await publishing;
    noteInTestLog(`partition scaling: ${accepted} accepted, ${refused} refused with 503 and retried`);

    // Records landed on the added partitions too: keys really moved.
    const kafka = createKafka({
      brokers: config.kafkaBrokers,
      clientId: 'scale-check',
      logger: createLogger({ name: 'scale-check', level: 'silent' }),
    });
    const admin = kafka.admin();
    await admin.connect();
    const offsets = await admin.fetchTopicOffsets(`${prefix}realtime.channel-commands`);
    await admin.disconnect();
    expect(offsets).to.have.length(TO);
    expect(offsets.filter((o) => o.partition >= FROM).some((o) => Number(o.high) > 0)).to.equal(true);

    for (let c = 0; c < CHANNELS; c++) {
      const channel = `scale:c${c}`;
      let entries: Array<{ offset: number; data: { seq: number } }> = [];
      await waitUntil(
        `${channel} applied every message`,
        async () => {
          const r = await api('GET', `/realtime/channels/${encodeURIComponent(channel)}/history?last_n=1000`);
          entries = r.json.data as typeof entries;
          return entries.length >= MESSAGES;
        },
        60_000,
      );
      expect(
        entries.map((e) => e.offset),
        `${channel} offsets`,
      ).to.deep.equal(Array.from({ length: MESSAGES }, (_, i) => i + 1));
      expect(
        entries.map((e) => e.data.seq),
        `${channel} order`,
      ).to.deep.equal(Array.from({ length: MESSAGES }, (_, i) => i));
    }
  });

  it('refuses to shrink, and scaling to the current count changes nothing', async () => {
    const same = await run(['topics', 'scale', 'realtime.channel-commands', '--partitions', String(TO)], env);
    expect(same.code, same.stderr).to.equal(0);
    expect(JSON.parse(same.stdout.trim())).to.deep.equal({
      topic: 'realtime.channel-commands',
      from: TO,
      to: TO,
    });
    const smaller = await run(['topics', 'scale', 'realtime.channel-commands', '--partitions', '6'], env);
    expect(smaller.code).to.equal(1);
    expect(smaller.stderr).to.match(/cannot take partitions away/);
  });
});
