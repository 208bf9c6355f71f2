// The inbound role beside the actors role on one machine (docs/operations.md "Scaling the actor
// role", docs/mail.md "Inbound bounces and complaints"): two `lattice start actors` processes, each with its
// own ACTORS_PORT, and one `lattice start inbound`, all three given the same INBOUND_SMTP_PORT as
// one deployment's configuration gives it. Only the inbound role listens there, so every process
// comes up healthy; the two actors hosts share every consumer group's partitions; and a DSN sent
// to the inbound role's SMTP port is matched to the email the actors sent, which becomes bounced
// with its address suppressed. The receiver's metrics are the inbound role's, not the actors'.
import type { ChildProcess } from 'node:child_process';
import { expect } from 'chai';
import { freePort, stopPlatform } from '../support/lattice-process.ts';
import { parseExposition, type Sample } from '../support/prometheus-text.ts';
import { waitUntil } from '../support/wait-until.ts';
import { deliverReport, fixtureReport } from './mail/inbound-reports.ts';
import {
  type InboundProcess,
  type MailPlatform,
  startActorsProcess,
  startInboundProcess,
  startMailPlatform,
} from './mail/mail-platform.ts';

const PARTITIONS = 4;

async function scrape(url: string): Promise<Sample[]> {
  return parseExposition(await (await fetch(`${url}/metrics`)).text()).samples;
}

/** The partitions each `group topic` has on a host, as its lag gauge reports them. */
function ownedPartitions(samples: readonly Sample[]): Map<string, number[]> {
  const owned = new Map<string, number[]>();
  for (const s of samples) {
    if (s.name !== 'lattice_actor_lag_records') continue;
    const key = `${s.labels.group} ${s.labels.topic}`;
    owned.set(
      key,
      [...(owned.get(key) ?? []), Number(s.labels.partition)].sort((a, b) => a - b),
    );
  }
  return owned;
}

/** Every group's partitions split between the hosts: each has some, none has one twice. */
function shared(hosts: ReadonlyArray<Map<string, number[]>>): boolean {
  const groups = new Set(hosts.flatMap((h) => [...h.keys()]));
  if (groups.size === 0) return false;
  for (const group of groups) {
    const parts = hosts.map((h) => h.get(group) ?? []);
    if (parts.some((p) => p.length === 0)) return false;
    const all = parts.flat().sort((a, b) => a - b);
    if (JSON.stringify(all) !== JSON.stringify([...Array(PARTITIONS).keys()])) return false;
  }
  return true;
}

describe('the inbound role beside two actors hosts on one machine', function () {
  this.timeout(180_000);
  let p: MailPlatform;
  const children: ChildProcess[] = [];
  const actorsUrls: string[] = [];
  let inbound: InboundProcess;

  before(async () => {
    p = await startMailPlatform({
      label: 'inbound-role',
      actors: false,
      config: { kafkaPartitions: PARTITIONS },
    });
    // One deployment's configuration: the same receiver port for every process.
    const smtpPort = String(await freePort());
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      children.push(
        await startActorsProcess(p, {
          ACTORS_PORT: String(port),
          INBOUND_SMTP_PORT: smtpPort,
          MAIL_RETRY_DELAYS_MS: '100,100,100',
        }),
      );
      actorsUrls.push(`http://127.0.0.1:${port}`);
    }
    inbound = await startInboundProcess(p, { INBOUND_SMTP_PORT: smtpPort });
    children.push(inbound.child);
  });
  after(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) await stopPlatform(child);
    await p?.close();
  });

  it('serves each process healthy, and the two actors hosts share every group’s partitions', async () => {
    for (const url of [...actorsUrls, inbound.metricsUrl]) {
      const health = await fetch(`${url}/healthz`);
      expect(health.status, url).to.equal(200);
    }
    let owned: Array<Map<string, number[]>> = [];
    await waitUntil(
      'both actors hosts to own partitions of every group',
      async () => {
        owned = await Promise.all(actorsUrls.map(async (url) => ownedPartitions(await scrape(url))));
        return shared(owned);
      },
      60_000,
      500,
    );
    // Every actor kind's group, on each host: channels, email state, sender, webhook fan-out
    // and endpoints.
    for (const host of owned) expect(host.size).to.equal(5);
    const inboundSamples = await scrape(inbound.metricsUrl);
    expect(inboundSamples.filter((s) => s.name.startsWith('lattice_actor_'))).to.deep.equal([]);
  });

  it('matches a DSN sent to the inbound role to the email the actors sent: bounced, suppressed', async () => {
    const recipient = 'ann.lee@example.net';
    const sent = await p.call<{ id: string }>('POST', '/mail/emails', p.product.ownerToken, {
      from: `news@${p.product.domain}`,
      to: recipient,
      subject: 'Hello',
      html: '<p>Hello</p>',
    });
    expect(sent.status, sent.text).to.equal(202);
    const id = sent.json.id;
    await p.waitForEmail(id, (e) => e.status === 'delivered');

    const answer = await deliverReport(
      inbound.smtpPort,
      `bounce+${id}@send.${p.product.domain}`,
      fixtureReport(
        'postfix-hard-user-unknown.eml',
        { emailId: '3f6c2a9e-8b1d-4c57-9a0e-5d2b7c41e903', recipient },
        { emailId: id, recipient },
      ),
    );
    expect(answer).to.match(/^250/);
    const email = await p.waitForEmail(id, (e) => e.status === 'bounced');
    expect(email.last_event).to.include({ type: 'bounced', bounce_kind: 'hard' });
    const suppression = await p
      .db('mail_suppressions')
      .where({ product_id: p.product.productId, address: recipient })
      .first();
    expect(suppression).to.include({ reason: 'hard_bounce', email_id: id });

    // Counted by the inbound role, on its own metrics port; the actors count no report.
    const samples = await scrape(inbound.metricsUrl);
    const value = (name: string, labels: Record<string, string> = {}) =>
      samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        ?.value;
    expect(value('lattice_mail_inbound_messages_total', { outcome: 'bounce' })).to.equal(1);
    expect(value('lattice_mail_inbound_events_total', { type: 'bounced', bounce_kind: 'hard' })).to.equal(1);
    expect(value('lattice_mail_inbound_connections_total')).to.be.at.least(1);
    expect(value('lattice_mail_inbound_connections_refused_total', { reason: 'per_address' })).to.equal(0);
    for (const url of actorsUrls) {
      const actors = await scrape(url);
      expect(
        actors.filter((s) => s.name.startsWith('lattice_mail_inbound_')),
        url,
      ).to.deep.equal([]);
    }
  });

  it('stops every process cleanly', async () => {
    for (const child of children.splice(0)) expect(await stopPlatform(child)).to.equal(0);
  });
});
