import { generateKeyPairSync, KeyObject } from 'node:crypto';
import { createLogger } from '@lattice/core';
import { ManualClock } from '@lattice/core/testing';
import { expect } from 'chai';
import { senderEmail } from '../testing/sender-email.ts';
import { createMessageBuilder, type DkimKey, KEY_CACHE_MS } from './message-builder.ts';
import type { SenderEmail } from './sender-store.ts';

const logger = createLogger({ name: 'message-builder-test', level: 'silent' });
const pem = (): string =>
  generateKeyPairSync('rsa', {
    modulusLength: 1024,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey;

const email = (over: Partial<SenderEmail> = {}): SenderEmail => senderEmail(over);

describe('message builder: the domain signing key', () => {
  it('is read once per cache window per domain and passed as a parsed key object; a new selector is taken up after the window', async () => {
    const clock = new ManualClock(1_000_000);
    let current: DkimKey = { domainName: 'example.org', keySelector: 's1', privateKey: pem() };
    const reads: string[] = [];
    const build = createMessageBuilder({
      keys: {
        async signingKey(productId, domainId) {
          reads.push(`${productId}/${domainId}`);
          return current;
        },
      },
      links: { unsubscribeUrl: () => 'https://edge.example/u', trackedHtml: (_e, html) => html },
      logger,
      clock,
    });
    const content = { html: '<p>x</p>', text: null };
    const first = await build(email(), content, clock.nowMs());
    clock.advance(KEY_CACHE_MS - 1);
    const second = await build(email(), content, clock.nowMs());
    expect(reads).to.deep.equal(['p/d']);
    const dkim = (o: typeof first) => o.dkim as { keySelector: string; privateKey: unknown };
    expect(dkim(first).privateKey).to.be.instanceOf(KeyObject);
    expect(dkim(second).privateKey, 'the same parsed key').to.equal(dkim(first).privateKey);
    // Another domain is read on its own.
    await build(email({ domainId: 'e' }), content, clock.nowMs());
    expect(reads).to.deep.equal(['p/d', 'p/e']);

    current = { domainName: 'example.org', keySelector: 's2', privateKey: pem() };
    clock.advance(1);
    const rotated = await build(email(), content, clock.nowMs());
    expect(reads).to.deep.equal(['p/d', 'p/e', 'p/d']);
    expect(dkim(rotated).keySelector).to.equal('s2');
    expect(dkim(rotated).privateKey).to.not.equal(dkim(first).privateKey);
  });

  it('does not keep a domain that is gone: every email asks again, and is unsendable', async () => {
    let reads = 0;
    const build = createMessageBuilder({
      keys: {
        async signingKey() {
          reads += 1;
          return undefined;
        },
      },
      links: { unsubscribeUrl: () => 'https://edge.example/u', trackedHtml: (_e, html) => html },
      logger,
    });
    for (let i = 0; i < 2; i++) {
      const err = await build(email(), { html: null, text: 'x' }, 0).catch((e: unknown) => e);
      expect((err as Error).name).to.equal('UnsendableError');
    }
    expect(reads).to.equal(2);
  });
});
