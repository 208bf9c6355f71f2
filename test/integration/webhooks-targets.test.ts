// Webhook targets and SSRF (decisions.md "Webhook delivery defaults"): private, loopback,
// link-local and metadata addresses in v4, v6 and IPv4-mapped forms are refused at create and
// update (400 naming `url`) unless the deployment allows private targets, which never opens the
// always-refused ones; and an attempt re-checks the address it connects to, so a target that
// turns private after its check (DNS rebinding) gets no request.
import { newId, sealSecret } from '@lattice/core';
import { mintWebhookSecret, WEBHOOK_SECRET_PURPOSE } from '@lattice/mail';
import { expect } from 'chai';
import { type HttpsReceiver, startHttpsReceiver } from '../support/https-receiver.ts';
import { startWebhookPlatform, type WebhookPlatform } from './webhooks/webhook-platform.ts';

const PRIVATE = [
  'https://127.0.0.1/hook',
  'https://localhost/hook',
  'https://[::1]/hook',
  'https://10.1.2.3/hook',
  'https://172.16.0.1/hook',
  'https://192.168.1.10/hook',
  'https://100.64.0.1/hook',
  'https://[fd12:3456::1]/hook',
  'https://[::ffff:127.0.0.1]/hook',
  'https://[::ffff:10.0.0.1]/hook',
  'https://2130706433/hook',
];
const ALWAYS_REFUSED = [
  'https://169.254.169.254/latest/meta-data',
  'https://[fd00:ec2::254]/',
  'https://[fe80::1]/hook',
  'https://[::ffff:169.254.169.254]/',
  'https://0.0.0.0/hook',
  'https://224.0.0.1/hook',
];

describe('mail webhooks: targets', function () {
  this.timeout(90_000);

  describe('private targets refused (the production default)', () => {
    let p: WebhookPlatform;
    let r: HttpsReceiver;
    before(async () => {
      p = await startWebhookPlatform({ label: 'webhook-ssrf', webhooks: { allowPrivateTargets: false } });
      r = await startHttpsReceiver();
    });
    after(async () => {
      await r?.close();
      await p?.close();
    });

    for (const url of [...PRIVATE, ...ALWAYS_REFUSED]) {
      it(`refuses ${url} at create`, async () => {
        const made = await p.call<{
          error: { code: string; fields: Array<{ path: string; message: string }> };
        }>('POST', '/mail/webhooks', p.product.ownerToken, { url, events: ['email.delivered'] });
        expect(made.status, made.text).to.equal(400);
        expect(made.json.error.code).to.equal('validation_error');
        expect(made.json.error.fields.map((f) => f.path)).to.deep.equal(['body.url']);
      });
    }

    it('refuses plain http and accepts a public name; update re-checks the url', async () => {
      const http = await p.call('POST', '/mail/webhooks', p.product.ownerToken, {
        url: 'http://hooks.example.com/x',
        events: ['email.delivered'],
      });
      expect(http.status).to.equal(400);
      // A name that does not resolve yet is accepted (checked again at every attempt).
      const made = await p.endpoint('https://hooks.not-yet-resolving.invalid/lattice');
      const moved = await p.call<{ error: { fields: Array<{ path: string }> } }>(
        'PATCH',
        `/mail/webhooks/${made.id}`,
        p.product.ownerToken,
        { url: 'https://[::ffff:192.168.0.1]/x' },
      );
      expect(moved.status, moved.text).to.equal(400);
      expect(moved.json.error.fields.map((f) => f.path)).to.deep.equal(['body.url']);
      const kept = await p.call<{ url: string }>('GET', `/mail/webhooks/${made.id}`, p.product.ownerToken);
      expect(kept.json.url).to.equal('https://hooks.not-yet-resolving.invalid/lattice');
    });

    it('an attempt to a target that resolves to a private address sends nothing (DNS rebinding)', async () => {
      // As if `localhost` had resolved to a public address when the endpoint was made.
      const id = newId();
      await p.db('mail_webhook_endpoints').insert({
        id,
        product_id: p.product.productId,
        url: r.url('/rebound'),
        events: ['email.delivered'],
        secret_sealed: sealSecret(p.keyring, WEBHOOK_SECRET_PURPOSE, mintWebhookSecret()),
      });
      await p.publish('delivered');
      const [d] = await p.waitForDeliveries(id, (x) => x[0]?.attempts === 1);
      expect(d).to.include({ status: 'pending', response_status: null });
      expect(d!.last_error).to.match(/^localhost resolves to a private address \(loopback/);
      expect(r.requests).to.deep.equal([]);
    });
  });

  describe('WEBHOOK_ALLOW_PRIVATE_TARGETS=true', () => {
    let p: WebhookPlatform;
    before(async () => {
      p = await startWebhookPlatform({
        label: 'webhook-ssrf-allow',
        webhooks: { allowPrivateTargets: true },
      });
    });
    after(() => p?.close());

    for (const url of PRIVATE) {
      it(`accepts ${url}`, async () => {
        const made = await p.call('POST', '/mail/webhooks', p.product.ownerToken, {
          url,
          events: ['email.delivered'],
        });
        expect(made.status, made.text).to.equal(201);
      });
    }
    for (const url of ALWAYS_REFUSED) {
      it(`still refuses ${url}`, async () => {
        const made = await p.call('POST', '/mail/webhooks', p.product.ownerToken, {
          url,
          events: ['email.delivered'],
        });
        expect(made.status, made.text).to.equal(400);
      });
    }
  });
});
