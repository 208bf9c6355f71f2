// Observability of a running platform (`lattice start`, every role in one process, which serves
// every role's /metrics on the management port): after a publish, a mail send and a webhook
// delivery, the metrics decisions.md "Operations" lists are there with their labels; every metric
// the alert rules and the Grafana dashboard of infra/observability name is exported; the lag of
// one partition grows while its channel actor is held up and falls to 0 once it goes on; and a
// request id given to the edge comes back in X-Request-Id and is found in the edge's request line
// and in the actor hosts' lines for every record the request led to, down to the webhook delivery.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@lattice/core';
import { testConfig, uniqueName } from '@lattice/core/testing';
import { metricNamesOf, observabilityQueries } from '@lattice/infra/observability';
import { createKafka, PIPELINE_STAGES, partitionOfKey } from '@lattice/kafka';
import { channelCommandKey } from '@lattice/realtime';
import { connect, type MessagePush, type RealtimeClient } from '@lattice/realtime-client';
import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import { type HttpsReceiver, startHttpsReceiver } from '../support/https-receiver.ts';
import { freePort, startPlatform, stopPlatform } from '../support/lattice-process.ts';
import { parseExposition, type Sample } from '../support/prometheus-text.ts';
import { waitUntil } from '../support/wait-until.ts';

const config = testConfig();
const PARTITIONS = 4;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface LogLine {
  msg?: string;
  requestId?: string;
  requestIds?: string[];
  topic?: string;
  group?: string;
  component?: string;
  status?: number;
  operationId?: string;
  [field: string]: unknown;
}

describe('metrics and request ids of a running platform', function () {
  this.timeout(240_000);
  const prefix = `${uniqueName('obs')}.`;
  let platform: { child: ChildProcess; output: () => string };
  let api: string;
  let edge: string;
  let productId: string;
  let token: string;
  let domain: string;
  let publicKey: string;
  let gatewayUrl: string;
  let receiver: HttpsReceiver;
  let db: Knex;

  const scrape = async () => parseExposition(await (await fetch(`${api}/metrics`)).text());
  const samplesOf = (all: Sample[], name: string, labels: Record<string, string> = {}) =>
    all.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  const logLines = (): LogLine[] =>
    platform
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine);
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${api}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const edgeCall = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${edge}/${productId}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${publicKey}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const history = async (channel: string) =>
    (
      (await (await call('GET', `/realtime/channels/${channel}/history?last_n=100`)).json()) as {
        data: unknown[];
      }
    ).data;

  before(async () => {
    db = knex({ client: 'pg', connection: config.databaseUrl, pool: { min: 0, max: 2 } });
    receiver = await startHttpsReceiver();
    const port = await freePort();
    const sinkPort = await freePort();
    edge = `http://127.0.0.1:${await freePort()}`;
    api = `http://127.0.0.1:${port}`;
    gatewayUrl = `ws://127.0.0.1:${await freePort()}`;
    platform = await startPlatform({
      MANAGEMENT_PORT: String(port),
      PUBLIC_URL: edge,
      PUBLIC_DEV_URL: `http://127.0.0.1:${await freePort()}`,
      GATEWAY_URL: gatewayUrl,
      GATEWAY_DEV_URL: `ws://127.0.0.1:${await freePort()}`,
      SMTP_SINK_PORT: String(sinkPort),
      SMTP_URL: `smtp://127.0.0.1:${sinkPort}`,
      INBOUND_SMTP_PORT: String(await freePort()),
      REDIS_KEY_PREFIX: `${uniqueName('obs')}:`,
      LATTICE_DATA_DIR: mkdtempSync(join(tmpdir(), 'lattice-obs-')),
      KAFKA_TOPIC_PREFIX: prefix,
      KAFKA_PARTITIONS: String(PARTITIONS),
      // The actor hosts' applied-records lines are at debug.
      LOG_LEVEL: 'debug',
    });
    const banner = platform.output();
    productId = /product_id\s+(\S+)/.exec(banner)![1]!;
    token = /owner_token\s+(lmt_[0-9a-f]{32})/.exec(banner)![1]!;
    domain = /verified domain\s+(\S+)/.exec(banner)![1]!;

    const made = await call('POST', '/organization/public-keys', {
      name: 'metrics',
      scope: { kind: 'product' },
    });
    expect(made.status).to.equal(201);
    publicKey = ((await made.json()) as { key: string }).key;
    const ns = await call('PUT', '/realtime/namespaces/chat', {
      presence: false,
      client_events: false,
      history_window_seconds: 600,
      archive_days: 0,
    });
    expect(ns.status).to.equal(201);
    const endpoint = await call('POST', '/mail/webhooks', {
      url: receiver.url('/hook'),
      events: ['email.delivered'],
    });
    expect(endpoint.status, await endpoint.clone().text()).to.equal(201);
    // The edge learns of the key by its change notification.
    await waitUntil(
      'the edge to know the new key',
      async () => (await edgeCall('/realtime/messages', {})).status !== 401,
      10_000,
    );
  });

  after(async () => {
    if (platform) expect(await stopPlatform(platform.child)).to.equal(0);
    await receiver?.close();
    await db?.destroy();
    const kafka = createKafka({
      brokers: config.kafkaBrokers,
      clientId: 'metrics-test',
      logger: createLogger({ name: 't', level: 'silent' }),
    });
    const admin = kafka.admin();
    await admin.connect();
    const mine = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (mine.length > 0) await admin.deleteTopics({ topics: mine });
    await admin.disconnect();
  });

  it('follows a request id from the edge to every actor that applied a record of it, down to the webhook delivery', async () => {
    const requestId = `obs-trace ${uniqueName('send')}`;
    const sent = await edgeCall(
      '/mail/emails',
      { from: `hello@${domain}`, to: 'bob@example.com', subject: 'Traced', text: 'hi' },
      { 'X-Request-Id': requestId },
    );
    expect(sent.status, await sent.clone().text()).to.equal(202);
    expect(sent.headers.get('x-request-id')).to.equal(requestId);
    await receiver.waitFor(1, 30_000);

    const applied = (topic: string, group: string) =>
      logLines().some(
        (l) =>
          l.msg === 'records applied' &&
          l.topic === `${prefix}${topic}` &&
          l.group === `${prefix}lattice-actors.${group}` &&
          l.requestIds?.includes(requestId),
      );
    // The send's record, its `delivered` event (both consumers of mail.events) and the webhook
    // delivery that event caused, each applied by its host under the edge's id. The fan-out wakes
    // an endpoint whose loop runs in its own process in place (a line of its own), and one of
    // another host through a record on mail.webhook-deliveries.
    const chain: Array<[string, string]> = [
      ['mail.outbound', 'mail-sender'],
      ['mail.events', 'email-state'],
      ['mail.events', 'webhook-fanout'],
    ];
    const endpointWoken = () =>
      applied('mail.webhook-deliveries', 'webhook-endpoint') ||
      logLines().some(
        (l) => l.msg === 'webhook endpoint woken in process' && l.requestIds?.includes(requestId),
      );
    await waitUntil(
      'every host to log the request id',
      () => chain.every(([t, g]) => applied(t, g)) && endpointWoken(),
      10_000,
    );
    const requestLine = logLines().find((l) => l.msg === 'request' && l.requestId === requestId);
    expect(requestLine).to.include({
      component: 'edge',
      method: 'POST',
      operationId: 'public_mail_email_send',
      status: 202,
    });
    expect(requestLine).to.not.have.property('path');

    // A publish on the edge reaches the channel actor with its id; one the edge cannot accept as
    // an id (a line break) is replaced by a UUID, which goes the same way.
    const publishId = `obs-publish-${uniqueName('p')}`;
    const published = await edgeCall(
      '/realtime/messages',
      { channel: 'chat:traced', data: { n: 1 } },
      { 'x-request-id': publishId },
    );
    expect(published.status).to.equal(202);
    expect(published.headers.get('x-request-id')).to.equal(publishId);
    const tooLong = await edgeCall(
      '/realtime/messages',
      { channel: 'chat:traced', data: { n: 2 } },
      {
        'x-request-id': 'x'.repeat(129),
      },
    );
    const generated = tooLong.headers.get('x-request-id')!;
    expect(generated).to.match(UUID);
    await waitUntil(
      'the channel actor to log both ids',
      () =>
        [publishId, generated].every((id) =>
          logLines().some(
            (l) =>
              l.msg === 'records applied' &&
              l.topic === `${prefix}realtime.channel-commands` &&
              l.requestIds?.includes(id),
          ),
        ),
      10_000,
    );

    // The management API answers and logs ids too, with the path of its operations.
    const listed = await call('GET', '/mail/webhooks', undefined, { 'X-Request-Id': 'obs-management-1' });
    expect(listed.headers.get('x-request-id')).to.equal('obs-management-1');
    await waitUntil(
      'the management request line',
      () =>
        logLines().some(
          (l) =>
            l.msg === 'request' &&
            l.requestId === 'obs-management-1' &&
            l.operationId === 'mail_webhook_list' &&
            l.path === '/mail/webhooks',
        ),
      5_000,
    );
  });

  it('exports what decisions.md lists, with its labels, and every metric the alerts and the dashboard name', async () => {
    // The work of the test before (a send, its webhook delivery, publishes) is counted.
    await waitUntil(
      'the webhook delivery to be counted',
      async () =>
        samplesOf((await scrape()).samples, 'lattice_mail_webhook_deliveries_total', {
          status: 'succeeded',
        }).some((s) => s.value >= 1),
      10_000,
    );
    const { samples, families } = await scrape();
    const group = (kind: string) => `${prefix}lattice-actors.${kind}`;
    const topic = (name: string) => `${prefix}${name}`;

    // Lag per partition of every consumer group of the actors role, labelled as decisions.md says.
    for (const [kind, name] of [
      ['channel', 'realtime.channel-commands'],
      ['mail-sender', 'mail.outbound'],
      ['email-state', 'mail.events'],
      ['webhook-fanout', 'mail.events'],
      ['webhook-endpoint', 'mail.webhook-deliveries'],
    ] as const) {
      const lag = samplesOf(samples, 'lattice_actor_lag_records', { group: group(kind), topic: topic(name) });
      expect(lag.map((s) => s.labels.partition).sort(), kind).to.deep.equal(['0', '1', '2', '3']);
      for (const s of lag)
        expect(Object.keys(s.labels).sort()).to.deep.equal(['group', 'partition', 'topic']);
      expect(
        lag.every((s) => s.value === 0),
        `${kind}: everything applied`,
      ).to.equal(true);
    }
    // Records handled and failed, per group.
    const applied = samplesOf(samples, 'lattice_actor_records_total', {
      group: group('mail-sender'),
      topic: topic('mail.outbound'),
      outcome: 'applied',
    });
    expect(applied[0]?.value).to.be.at.least(1);
    for (const outcome of ['replay_skipped', 'dead_lettered'])
      expect(
        samplesOf(samples, 'lattice_actor_records_total', { group: group('channel'), outcome }),
      ).to.have.length(1);
    for (const kind of ['retryable', 'terminal', 'decode'])
      expect(
        samplesOf(samples, 'lattice_actor_handler_errors_total', { group: group('channel'), kind }),
      ).to.have.length(1);
    expect(
      samplesOf(samples, 'lattice_actor_host_up', { group: group('webhook-fanout') })[0]?.value,
    ).to.equal(1);
    // Edge requests by outcome, per environment.
    expect(
      samplesOf(samples, 'lattice_edge_requests_total', { environment: 'production', outcome: 'passed' })[0]
        ?.value,
    ).to.be.at.least(3);
    expect(
      samplesOf(samples, 'lattice_edge_requests_total', { environment: 'development', outcome: 'passed' }),
    ).to.have.length(1);
    // Gateway connections and subscriptions, per environment.
    for (const name of ['lattice_gateway_connections', 'lattice_gateway_subscriptions'])
      expect(
        samplesOf(samples, name)
          .map((s) => s.labels.environment)
          .sort(),
        name,
      ).to.deep.equal(['development', 'production']);
    // Mail sends by result, webhook deliveries by status.
    expect(samplesOf(samples, 'lattice_mail_sends_total', { result: 'delivered' })[0]?.value).to.be.at.least(
      1,
    );
    expect(samplesOf(samples, 'lattice_mail_sends_total', { result: 'hard_bounce' })[0]?.value).to.equal(0);
    expect(
      samplesOf(samples, 'lattice_mail_webhook_deliveries_total', { status: 'failed' })[0]?.value,
    ).to.equal(0);
    // The key snapshot's age against its maximum, and the fallback limiters at 0.
    const age = samplesOf(samples, 'lattice_edge_key_snapshot_age_seconds', { environment: 'production' })[0];
    const maxAge = samplesOf(samples, 'lattice_edge_key_snapshot_max_age_seconds', {
      environment: 'production',
    })[0];
    expect(age?.value).to.be.within(0, 60);
    expect(maxAge?.value).to.equal(300);
    for (const name of [
      'lattice_edge_rate_limit_fallbacks_total',
      'lattice_realtime_publish_quota_fallbacks_total',
      'lattice_mail_send_rate_fallbacks_total',
    ])
      expect(
        samplesOf(samples, name).map((s) => s.value),
        name,
      ).to.include(0);

    // `up` is Prometheus's own series of each target (LatticeRoleDown), not a role's.
    const exported = new Set([...families, ...samples.map((s) => s.name), 'up']);
    const missing = observabilityQueries().flatMap(({ where, expr }) =>
      metricNamesOf(expr)
        .filter((name) => !exported.has(name))
        .map((name) => `${where}: ${name}`),
    );
    expect(
      missing,
      'metrics the alerts and the dashboard name but the platform does not export',
    ).to.deep.equal([]);
  });

  it('times every stage of a publish, an email and its webhook delivery on the stage histograms', async () => {
    const counts = async () => {
      const all = (await scrape()).samples;
      return Object.fromEntries(
        Object.entries(PIPELINE_STAGES).flatMap(([flow, stages]) =>
          stages.map((stage) => {
            const [count] = samplesOf(all, 'lattice_pipeline_stage_seconds_count', { flow, stage });
            const [sum] = samplesOf(all, 'lattice_pipeline_stage_seconds_sum', { flow, stage });
            return [`${flow} ${stage}`, { count: count?.value ?? -1, sum: sum?.value ?? -1 }];
          }),
        ),
      );
    };
    const before = await counts();
    expect(
      Object.values(before).every((c) => c.count >= 0),
      'every stage exported',
    ).to.equal(true);

    // A subscriber on the gateway, so the publication is pushed.
    const channel = 'chat:stages';
    const client: RealtimeClient = connect({
      url: gatewayUrl,
      getToken: async () => {
        const issued = await edgeCall('/realtime/tokens/issue', {
          subject: 'stages',
          channels: [{ name: channel, ops: ['subscribe'] }],
        });
        return ((await issued.json()) as { token: string }).token;
      },
    });
    try {
      const pushed: MessagePush[] = [];
      await client.subscribe(channel, { onMessage: (m) => pushed.push(m) });
      expect((await edgeCall('/realtime/messages', { channel, data: { n: 1 } })).status).to.equal(202);
      await waitUntil('the push', () => pushed.length === 1, 10_000);
    } finally {
      await client.close();
    }
    const deliveries = receiver.requests.length;
    const sent = await edgeCall('/mail/emails', {
      from: `hello@${domain}`,
      to: 'stages@example.com',
      subject: 'Stages',
      text: 'hi',
    });
    expect(sent.status).to.equal(202);
    await receiver.waitFor(deliveries + 1, 30_000);

    const moved = (now: Awaited<ReturnType<typeof counts>>) =>
      Object.fromEntries(Object.entries(now).map(([k, v]) => [k, v.count - before[k]!.count]));
    let after = await counts();
    await waitUntil(
      'every stage to count its record',
      async () => {
        after = await counts();
        return Object.values(moved(after)).every((n) => n >= 1);
      },
      10_000,
    );
    // One message, one email and one webhook delivery: each stage counted exactly one record,
    // and took some time, less than the whole test.
    expect(moved(after)).to.deep.equal(Object.fromEntries(Object.keys(before).map((k) => [k, 1])));
    for (const [stage, { sum }] of Object.entries(after)) {
      expect(sum - before[stage]!.sum, stage).to.be.within(0, 30);
    }
  });

  it('shows the lag of a partition growing while its channel actor is held up, and falling to 0 after', async () => {
    const channel = 'chat:lagging';
    const commands = `${prefix}realtime.channel-commands`;
    const partition = String(
      partitionOfKey(
        commands,
        channelCommandKey({ productId, environment: 'production', channel }),
        PARTITIONS,
      ),
    );
    const lagNow = async () =>
      samplesOf((await scrape()).samples, 'lattice_actor_lag_records', {
        group: `${prefix}lattice-actors.channel`,
        topic: commands,
        partition,
      })[0]?.value;
    const publish = async (n: number) => {
      const answer = await call('POST', '/realtime/messages', {
        environment: 'production',
        channel,
        data: { n },
      });
      expect(answer.status).to.equal(202);
    };
    await publish(0);
    await waitUntil('the first message applied', async () => (await history(channel)).length === 1, 15_000);
    expect(await lagNow()).to.equal(0);

    // The channel's state row locked: the actor's next write waits, and with it the partition.
    const held = await db.transaction();
    const records = 5;
    try {
      await held.raw(
        `select 1 from channel_state where product_id = ? and environment = 'production' and channel = ? for update`,
        [productId, channel],
      );
      for (let n = 1; n <= records; n += 1) await publish(n);
      await waitUntil(
        'the lag to reach every record published',
        async () => (await lagNow()) === records,
        15_000,
      );
      expect(await history(channel)).to.have.length(1);
    } finally {
      await held.rollback();
    }
    await waitUntil('the lag to fall to 0', async () => (await lagNow()) === 0, 15_000);
    expect(await history(channel)).to.have.length(records + 1);
  });
});
