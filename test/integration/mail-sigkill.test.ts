// The mail sender's handover guarantee under a crash (docs/mail.md "Handover guarantee"): 500
// emails accepted through the management API, handed over by two `lattice start actors`
// processes to a real smart host that answers slowly, one of them SIGKILLed midway. Afterwards
// every accepted email has reached its final event exactly once in the event log, and every
// copy the smart host received twice belongs to an email whose repeated attempt was counted
// (send_repeats): duplicates only inside the documented window, all of them counted.

import type { ChildProcess } from 'node:child_process';
import { noteInTestLog } from '@lattice/core/testing';
import { expect } from 'chai';
import { stopPlatform } from '../support/lattice-process.ts';
import { waitUntil } from '../support/wait-until.ts';
import { type MailPlatform, startActorsProcess, startMailPlatform } from './mail/mail-platform.ts';

const EMAILS = 500;
const PARTITIONS = 4;

describe('mail sender: an actors host SIGKILLed with 500 emails in flight', function () {
  this.timeout(240_000);
  let p: MailPlatform;
  const hosts: ChildProcess[] = [];

  before(async () => {
    p = await startMailPlatform({
      label: 'mail-kill',
      actors: false,
      config: { kafkaPartitions: PARTITIONS },
      // decisions.md "Benchmarks": beyond the product default, through the management API.
      sendRatePerSecond: 100_000,
    });
    p.smartHost.dataDelayMs = 20;
  });
  after(async () => {
    for (const h of hosts) if (h.exitCode === null && h.signalCode === null) await stopPlatform(h);
    await p?.close();
  });

  async function startHost(): Promise<ChildProcess> {
    const child = await startActorsProcess(p, { MAIL_RETRY_DELAYS_MS: '100,100,100' });
    hosts.push(child);
    return child;
  }

  async function count(query: string): Promise<number> {
    const { rows } = (await p.db.raw(query, [p.product.productId])) as { rows: Array<{ n: string }> };
    return Number(rows[0]!.n);
  }

  it('every accepted email reaches its final event; every duplicate at the smart host is a counted repeat', async () => {
    const victim = await startHost();
    await startHost();

    // Accept the 500 as 10 concurrent clients.
    const ids: string[] = [];
    let next = 0;
    const accepting = Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < EMAILS) {
          const i = next++;
          const sent = await p.call<{ id: string }>('POST', '/mail/emails', p.product.ownerToken, {
            from: `news@${p.product.domain}`,
            to: `reader-${i}@example.net`,
            subject: `Message ${i}`,
            html: `<p>Message ${i}</p>`,
          });
          expect(sent.status, sent.text).to.equal(202);
          ids.push(sent.json.id);
        }
      }),
    );

    await waitUntil('a fifth handed over', () => p.smartHost.received.length >= EMAILS / 5, 120_000);
    victim.kill('SIGKILL');
    const atKill = p.smartHost.received.length;
    await accepting;
    expect(atKill, 'killed midway').to.be.lessThan(EMAILS / 2);

    await waitUntil(
      'every email delivered by the survivor',
      async () =>
        (await count(
          `select count(*) as n from mail_emails where product_id = ? and status = 'delivered' and last_event_type = 'delivered'`,
        )) === EMAILS,
      180_000,
    );

    // Exactly one final event per email in the log (a re-published outcome shares its id).
    expect(
      await count(`select count(*) as n from mail_email_events where product_id = ? and type = 'delivered'`),
    ).to.equal(EMAILS);
    expect(
      await count(`select count(distinct email_id) as n from mail_email_events where product_id = ?`),
    ).to.equal(EMAILS);

    // What the smart host received, per email (the Message-ID carries the email id).
    const copies = new Map<string, number>();
    for (const m of p.smartHost.received) {
      const id = /^<([0-9a-f-]{36})@/.exec(m.messageId ?? '')?.[1];
      if (id) copies.set(id, (copies.get(id) ?? 0) + 1);
    }
    expect(new Set(ids).size).to.equal(EMAILS);
    for (const id of ids) expect(copies.get(id) ?? 0, `email ${id} reached the smart host`).to.be.at.least(1);
    const repeats = new Map(
      (
        (await p
          .db('mail_emails')
          .where({ product_id: p.product.productId })
          .where('send_repeats', '>', 0)
          .select('id', 'send_repeats')) as Array<{ id: string; send_repeats: number }>
      ).map((r) => [r.id, r.send_repeats]),
    );
    let duplicates = 0;
    for (const [id, n] of copies) {
      if (n <= 1) continue;
      duplicates += n - 1;
      expect(repeats.get(id) ?? 0, `email ${id} arrived ${n} times`).to.be.at.least(n - 1);
    }
    const counted = [...repeats.values()].reduce((a, b) => a + b, 0);
    noteInTestLog(
      `mail-sigkill: ${EMAILS} emails, ${atKill} handed over at the kill, ${counted} repeated attempts counted, ${duplicates} duplicates at the smart host`,
    );
    expect(duplicates).to.be.at.most(counted);
  });
});
