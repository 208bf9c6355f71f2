import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { WebhookVerificationError } from './errors.ts';
import { verifyWebhook } from './webhook.ts';

// verifyWebhook must agree with the reference library of the standard (the one docs/webhooks.md
// shows receivers) on every delivery: accepted with the same payload, or refused by both.
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const reference = new Webhook(SECRET);
const BODY = JSON.stringify({
  type: 'email.bounced',
  timestamp: '2026-11-24T12:00:00.123Z',
  data: {
    eventId: 'ev1',
    emailId: 'em1',
    type: 'bounced',
    recipient: 'ann@example.org',
    bounceKind: 'hard',
    reason: '550 5.1.1 user unknown',
    providerMessageId: '4XyZ',
    occurredAt: '2026-11-24T12:00:00.123Z',
  },
});
const ID = 'msg_2b5e0c1f';
const nowSeconds = () => Math.floor(Date.now() / 1000);

function signed(opts: { id?: string; seconds?: number; body?: string | Buffer } = {}) {
  const seconds = opts.seconds ?? nowSeconds();
  const signature = reference.sign(opts.id ?? ID, new Date(seconds * 1000), opts.body ?? BODY);
  return {
    'webhook-id': opts.id ?? ID,
    'webhook-timestamp': String(seconds),
    'webhook-signature': signature,
  };
}

type Outcome = { ok: true; payload: unknown } | { ok: false };

function both(headers: Record<string, string>, body: string | Buffer, secret = SECRET): Outcome {
  let ours: Outcome;
  let theirs: Outcome;
  try {
    ours = { ok: true, payload: verifyWebhook(secret, headers, body) };
  } catch (err) {
    expect(err).to.be.instanceOf(WebhookVerificationError);
    ours = { ok: false };
  }
  try {
    theirs = { ok: true, payload: new Webhook(secret).verify(body, headers) };
  } catch {
    theirs = { ok: false };
  }
  expect(ours, 'verifyWebhook and standardwebhooks disagree').to.deep.equal(theirs);
  return ours;
}

const signatureOf = (headers: Record<string, string>) => headers['webhook-signature']!.split(',')[1]!;

describe('verifyWebhook agrees with standardwebhooks', () => {
  it('accepts a valid delivery and returns its parsed payload (string or Buffer body)', () => {
    expect(both(signed(), BODY)).to.deep.equal({ ok: true, payload: JSON.parse(BODY) });
    const buffer = Buffer.from(BODY);
    expect(both(signed({ body: buffer }), buffer).ok).to.equal(true);
  });

  it('refuses a tampered body', () => {
    expect(both(signed(), BODY.replace('hard', 'soft')).ok).to.equal(false);
    expect(both(signed(), `${BODY} `).ok).to.equal(false);
  });

  it('refuses a tampered signature', () => {
    const headers = signed();
    const sig = signatureOf(headers);
    const flipped = `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`;
    expect(both({ ...headers, 'webhook-signature': `v1,${flipped}` }, BODY).ok).to.equal(false);
    expect(both({ ...headers, 'webhook-signature': `v1,${sig}!` }, BODY).ok).to.equal(false);
    expect(both({ ...headers, 'webhook-signature': `v1,${sig.slice(0, -2)}` }, BODY).ok).to.equal(false);
    expect(both({ ...headers, 'webhook-signature': `v2,${sig}` }, BODY).ok).to.equal(false);
    expect(both({ ...headers, 'webhook-signature': sig }, BODY).ok).to.equal(false);
  });

  it('refuses a tampered id or timestamp', () => {
    expect(both({ ...signed(), 'webhook-id': 'msg_other' }, BODY).ok).to.equal(false);
    const headers = signed();
    expect(
      both({ ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1) }, BODY).ok,
    ).to.equal(false);
  });

  it('refuses a stale timestamp beyond five minutes, not within', () => {
    expect(both(signed({ seconds: nowSeconds() - 310 }), BODY).ok).to.equal(false);
    expect(both(signed({ seconds: nowSeconds() - 290 }), BODY).ok).to.equal(true);
  });

  it('refuses a future timestamp beyond five minutes, not within', () => {
    expect(both(signed({ seconds: nowSeconds() + 310 }), BODY).ok).to.equal(false);
    expect(both(signed({ seconds: nowSeconds() + 290 }), BODY).ok).to.equal(true);
  });

  it('accepts a delivery when any one of several signatures matches (a secret being rotated)', () => {
    const headers = signed();
    const right = headers['webhook-signature']!;
    const other = new Webhook(`whsec_${randomBytes(32).toString('base64')}`);
    const wrong = other.sign(ID, new Date(Number(headers['webhook-timestamp']) * 1000), BODY);
    expect(both({ ...headers, 'webhook-signature': `${wrong} ${right}` }, BODY).ok).to.equal(true);
    expect(both({ ...headers, 'webhook-signature': `${right} ${wrong}` }, BODY).ok).to.equal(true);
    expect(both({ ...headers, 'webhook-signature': `${wrong} ${wrong}` }, BODY).ok).to.equal(false);
  });

  it('refuses a delivery with a header missing', () => {
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const headers: Record<string, string> = signed();
      delete headers[name];
      expect(both(headers, BODY).ok).to.equal(false);
    }
  });

  it('takes the secret with or without its whsec_ prefix', () => {
    expect(both(signed(), BODY, SECRET.slice('whsec_'.length)).ok).to.equal(true);
  });
});

describe('verifyWebhook on its own', () => {
  it('reads headers from a fetch Headers, from node (any case, arrays) and from express-like get()', () => {
    const headers = signed();
    expect(verifyWebhook(SECRET, new Headers(headers), BODY)).to.deep.equal(JSON.parse(BODY));
    const node = {
      'Webhook-Id': [ID],
      'WEBHOOK-TIMESTAMP': headers['webhook-timestamp'],
      'webhook-signature': headers['webhook-signature'],
    };
    expect(verifyWebhook(SECRET, node, new TextEncoder().encode(BODY))).to.deep.equal(JSON.parse(BODY));
    const req = { get: (name: string) => headers[name as keyof typeof headers] };
    expect(verifyWebhook(SECRET, req, BODY)).to.deep.equal(JSON.parse(BODY));
  });

  it('applies its tolerance either way', () => {
    const headers = signed({ seconds: 1_000_000 });
    expect(() =>
      verifyWebhook(SECRET, headers, BODY, { nowMs: 1_000_061_000, toleranceSeconds: 60 }),
    ).to.throw(WebhookVerificationError, /too old/);
    expect(() => verifyWebhook(SECRET, headers, BODY, { nowMs: 999_939_000, toleranceSeconds: 60 })).to.throw(
      WebhookVerificationError,
      /future/,
    );
    expect(
      verifyWebhook(SECRET, headers, BODY, { nowMs: 1_000_060_000, toleranceSeconds: 60 }),
    ).to.deep.equal(JSON.parse(BODY));
  });

  it('refuses a non-numeric timestamp and an empty secret', () => {
    expect(() => verifyWebhook(SECRET, { ...signed(), 'webhook-timestamp': '12a' }, BODY)).to.throw(
      WebhookVerificationError,
    );
    expect(() => verifyWebhook('whsec_', signed(), BODY)).to.throw(WebhookVerificationError, /empty/);
  });
});
