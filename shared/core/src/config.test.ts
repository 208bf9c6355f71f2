import { expect } from 'chai';
import { ConfigError, loadConfig, portOf } from './config.ts';

describe('loadConfig', () => {
  it('uses the documented defaults', () => {
    const c = loadConfig({});
    expect(c.managementPort).to.equal(4000);
    expect(c.publicUrls).to.deep.equal({
      production: 'http://127.0.0.1:4001',
      development: 'http://127.0.0.1:4002',
    });
    expect(c.gatewayUrls.development).to.equal('ws://127.0.0.1:4004');
    expect(c.kafkaBrokers).to.deep.equal(['127.0.0.1:9092']);
    expect(c.kafkaPartitions).to.equal(12);
    expect(c.databaseUrl).to.equal('postgres://postgres@127.0.0.1:5432/lattice');
  });

  it('prefers options over environment over defaults', () => {
    const env = { MANAGEMENT_PORT: '5000', KAFKA_BROKERS: 'a:1, b:2' };
    expect(loadConfig(env).managementPort).to.equal(5000);
    expect(loadConfig(env).kafkaBrokers).to.deep.equal(['a:1', 'b:2']);
    expect(loadConfig(env, { managementPort: 6000 }).managementPort).to.equal(6000);
  });

  it('follows the cluster for the replication factor unless KAFKA_REPLICATION_FACTOR names one', () => {
    expect(loadConfig({}).kafkaReplicationFactor).to.equal('cluster');
    expect(loadConfig({ KAFKA_REPLICATION_FACTOR: 'cluster' }).kafkaReplicationFactor).to.equal('cluster');
    expect(loadConfig({ KAFKA_REPLICATION_FACTOR: '3' }).kafkaReplicationFactor).to.equal(3);
    expect(() => loadConfig({ KAFKA_REPLICATION_FACTOR: '0' })).to.throw(
      ConfigError,
      /KAFKA_REPLICATION_FACTOR/,
    );
    expect(() => loadConfig({ KAFKA_REPLICATION_FACTOR: 'three' })).to.throw(ConfigError);
  });

  it('rejects malformed numbers and levels with a named error', () => {
    expect(() => loadConfig({ KAFKA_PARTITIONS: 'twelve' })).to.throw(ConfigError, /KAFKA_PARTITIONS/);
    expect(() => loadConfig({ KAFKA_PARTITIONS: '0' })).to.throw(ConfigError);
    expect(() => loadConfig({ MANAGEMENT_PORT: '65536' })).to.throw(ConfigError);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).to.throw(ConfigError, /LOG_LEVEL/);
  });

  it('reads the rate-limit Redis timeout within 1 to 60 000 ms, 250 by default', () => {
    expect(loadConfig({}).rateLimitRedisTimeoutMs).to.equal(250);
    expect(loadConfig({ RATE_LIMIT_REDIS_TIMEOUT_MS: '1' }).rateLimitRedisTimeoutMs).to.equal(1);
    expect(loadConfig({ RATE_LIMIT_REDIS_TIMEOUT_MS: '60000' }).rateLimitRedisTimeoutMs).to.equal(60_000);
    for (const bad of ['0', '60001', '1.5'])
      expect(() => loadConfig({ RATE_LIMIT_REDIS_TIMEOUT_MS: bad })).to.throw(
        ConfigError,
        /RATE_LIMIT_REDIS/,
      );
  });

  it('reads the publish quota numbers a deployment sets, and leaves the others to the toolkit', () => {
    expect(loadConfig({}).publishQuota).to.deep.equal({});
    expect(
      loadConfig({
        REALTIME_PUBLISH_SUSTAINED_PER_SECOND: '0',
        REALTIME_PUBLISH_WINDOW_MS: '1',
        REALTIME_PUBLISH_BURST: '2',
        REALTIME_PUBLISH_HARD_LIMIT: '1',
      }).publishQuota,
    ).to.deep.equal({ sustainedPerSecond: 0, windowMs: 1, burstPerWindow: 2, hardLimitPerWindow: 1 });
    expect(loadConfig({ REALTIME_PUBLISH_HARD_LIMIT: '' }).publishQuota).to.deep.equal({});
    expect(() => loadConfig({ REALTIME_PUBLISH_HARD_LIMIT: 'lots' })).to.throw(
      ConfigError,
      /REALTIME_PUBLISH_HARD_LIMIT/,
    );
    expect(() => loadConfig({ REALTIME_PUBLISH_HARD_LIMIT: '0' })).to.throw(
      ConfigError,
      /REALTIME_PUBLISH_HARD_LIMIT/,
    );
    expect(() => loadConfig({ REALTIME_PUBLISH_WINDOW_MS: '0' })).to.throw(
      ConfigError,
      /REALTIME_PUBLISH_WINDOW_MS/,
    );
    expect(() => loadConfig({ REALTIME_PUBLISH_BURST: '-1' })).to.throw(
      ConfigError,
      /REALTIME_PUBLISH_BURST/,
    );
    expect(loadConfig({ REALTIME_PUBLISH_BURST: '0' }).publishQuota).to.deep.equal({ burstPerWindow: 0 });
    expect(() => loadConfig({ REALTIME_PUBLISH_SUSTAINED_PER_SECOND: '-1' })).to.throw(
      ConfigError,
      /REALTIME_PUBLISH_SUSTAINED_PER_SECOND/,
    );
  });

  it('serves a key snapshot at most 10 windows by default, and never less than 2', () => {
    expect(loadConfig({}).snapshotMaxAgeMs).to.equal(300_000);
    expect(loadConfig({}, { snapshotRefreshMs: 500 }).snapshotMaxAgeMs).to.equal(5000);
    expect(loadConfig({ PUBLIC_KEY_SNAPSHOT_REFRESH_MS: '1000' }).snapshotMaxAgeMs).to.equal(10_000);
    const refresh = { PUBLIC_KEY_SNAPSHOT_REFRESH_MS: '500' };
    expect(loadConfig({ ...refresh, PUBLIC_KEY_SNAPSHOT_MAX_AGE_MS: '1000' }).snapshotMaxAgeMs).to.equal(
      1000,
    );
    expect(() => loadConfig({ ...refresh, PUBLIC_KEY_SNAPSHOT_MAX_AGE_MS: '999' })).to.throw(
      ConfigError,
      /PUBLIC_KEY_SNAPSHOT_MAX_AGE_MS must be at least twice/,
    );
    expect(() => loadConfig({ PUBLIC_KEY_SNAPSHOT_MAX_AGE_MS: '0' })).to.throw(ConfigError);
    expect(() => loadConfig({}, { snapshotRefreshMs: 500, snapshotMaxAgeMs: 999 })).to.throw(ConfigError);
  });

  it('reads the webhook schedule as exactly four delays, the attempt limit and the private-target switch', () => {
    expect(loadConfig({}).webhooks).to.deep.equal({
      retryDelaysMs: [5_000, 300_000, 1_800_000, 7_200_000],
      timeoutMs: 10_000,
      allowPrivateTargets: null,
    });
    expect(loadConfig({ WEBHOOK_RETRY_DELAYS_MS: '1,2,3,4' }).webhooks.retryDelaysMs).to.deep.equal([
      1, 2, 3, 4,
    ]);
    for (const three of ['1,2,3', '1,2,3,4,5']) {
      expect(() => loadConfig({ WEBHOOK_RETRY_DELAYS_MS: three })).to.throw(ConfigError, /exactly four/);
    }
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }).webhooks.allowPrivateTargets).to.equal(true);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' }).webhooks.allowPrivateTargets).to.equal(
      false,
    );
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'yes' })).to.throw(ConfigError, /true or false/);
    expect(loadConfig({ WEBHOOK_TIMEOUT_MS: '1' }).webhooks.timeoutMs).to.equal(1);
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '0' })).to.throw(ConfigError);
  });

  it('reads the slow-request cuts: 10 s and 30 s by default, the whole request at least as long as its headers', () => {
    expect(loadConfig({}).httpTimeouts).to.deep.equal({ headersMs: 10_000, requestMs: 30_000 });
    expect(
      loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '2000', HTTP_REQUEST_TIMEOUT_MS: '2000' }).httpTimeouts,
    ).to.deep.equal({ headersMs: 2000, requestMs: 2000 });
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '2001', HTTP_REQUEST_TIMEOUT_MS: '2000' })).to.throw(
      ConfigError,
      /HTTP_REQUEST_TIMEOUT_MS \(2000\) must be at least HTTP_HEADERS_TIMEOUT_MS \(2001\)/,
    );
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '99' })).to.throw(
      ConfigError,
      /HTTP_HEADERS_TIMEOUT_MS/,
    );
  });

  it('reads ports from origins', () => {
    expect(portOf('http://127.0.0.1:4001')).to.equal(4001);
    expect(portOf('https://edge.example.com')).to.equal(443);
  });

  it('reads retention in days and the purge cadence, with the documented defaults and bounds', () => {
    expect(loadConfig({}).retention).to.deep.equal({
      webhookDeliveryDays: 30,
      mailDays: 30,
      deadLetterDays: 14,
      purgeIntervalMs: 60_000,
      purgeBudgetMs: 2_000,
      purgeBatchSize: 1_000,
    });
    expect(loadConfig({ MAIL_RETENTION_DAYS: '1', RETENTION_PURGE_BUDGET_MS: '0' }).retention).to.include({
      mailDays: 1,
      purgeBudgetMs: 0,
    });
    expect(() => loadConfig({ MAIL_RETENTION_DAYS: '0' })).to.throw(ConfigError, /MAIL_RETENTION_DAYS/);
    expect(() => loadConfig({ RETENTION_PURGE_BATCH: '0' })).to.throw(ConfigError, /RETENTION_PURGE_BATCH/);
  });

  it('keeps a generated keyring in the user data folder unless LATTICE_KEYRING_DIR says where', () => {
    expect(loadConfig({ HOME: '/home/ada' }).keyringDir).to.equal('/home/ada/.local/share/lattice/keyrings');
    expect(loadConfig({ HOME: '/home/ada', XDG_DATA_HOME: '/data' }).keyringDir).to.equal(
      '/data/lattice/keyrings',
    );
    expect(loadConfig({ LATTICE_KEYRING_DIR: '/k' }).keyringDir).to.equal('/k');
  });

  it('sends to the local mailbox wherever SMTP_SINK_PORT puts it, unless SMTP_URL says otherwise', () => {
    expect(loadConfig({}).smtpUrl).to.equal('smtp://127.0.0.1:2525');
    expect(loadConfig({ SMTP_SINK_PORT: '2600' }).smtpUrl).to.equal('smtp://127.0.0.1:2600');
    expect(loadConfig({ SMTP_SINK_PORT: '2600', SMTP_URL: 'smtp://relay:25' }).smtpUrl).to.equal(
      'smtp://relay:25',
    );
  });
});
