// Webhook attempts against a real HTTPS receiver whose certificate comes from the suite's test
// CA (NODE_EXTRA_CA_CERTS, set by scripts/test.sh): what counts as an answer, the time limit,
// certificates, the SSRF guard at attempt time, keep-alive and Retry-After. The time limit runs
// on a ManualScheduler and the receiver holds its answer until the test releases it, so the
// limit is checked exactly, on both sides of it, with no real wait and no margin.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { getDefaultAutoSelectFamily, setDefaultAutoSelectFamily } from 'node:net';
import { ManualScheduler } from '@lattice/core/testing';
import { expect } from 'chai';
import { type HttpsReceiver, startHttpsReceiver } from '../../../../test/support/https-receiver.ts';
import { createTargetGuard, type HostLookup, type TargetGuard } from './target-guard.ts';
import { type AttemptResult, createWebhookRequester, type WebhookRequester } from './webhook-request.ts';

const BODY = JSON.stringify({ type: 'email.delivered', data: { note: 'ünïcødé ✓' } });
const SIGNED = { 'webhook-id': 'msg_1', 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,abc' };

/** A promise the test settles by hand: a receiver's held answer. */
function gate(): { promise: Promise<void>; release: () => void } {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { promise, release };
}

/** A post's result once it has one: undefined while the post is still pending. */
function watch(post: Promise<AttemptResult>): { result: AttemptResult | undefined } {
  const watched: { result: AttemptResult | undefined } = { result: undefined };
  void post.then((r) => {
    watched.result = r;
  });
  return watched;
}

/**
 * Resolves with the status once this process's HTTP client has parsed the head of an answer to a
 * request for `path`. Node publishes `http.client.response.finish` just before it emits
 * 'response', so by the time the awaiting test goes on, the requester has seen the status.
 */
function answerHeadReceived(path: string): Promise<number> {
  const channel = 'http.client.response.finish';
  return new Promise((resolve) => {
    const onMessage = (message: unknown) => {
      const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
      if (request.path !== path) return;
      unsubscribe(channel, onMessage);
      resolve(response.statusCode ?? 0);
    };
    subscribe(channel, onMessage);
  });
}

describe('webhook request (real HTTPS receiver)', function () {
  this.timeout(20_000);
  let receiver: HttpsReceiver;
  const requesters: WebhookRequester[] = [];
  const allowing = createTargetGuard({ allowPrivateTargets: true });
  const strict = createTargetGuard({ allowPrivateTargets: false });

  function requester(guard: TargetGuard = allowing, timeoutMs = 5000, extra = {}): WebhookRequester {
    const r = createWebhookRequester({ guard, timeoutMs, ...extra });
    requesters.push(r);
    return r;
  }

  before(async () => {
    receiver = await startHttpsReceiver();
  });
  after(() => receiver.close());
  beforeEach(() => {
    receiver.requests.splice(0);
    receiver.respond = () => ({ status: 204 });
  });
  afterEach(() => {
    for (const r of requesters.splice(0)) r.close();
  });

  const failedWithout = (r: AttemptResult) => {
    expect(r.ok).to.equal(false);
    expect(r.responseStatus).to.equal(null);
    expect(r.error).to.be.a('string');
  };

  it('succeeds on a 2xx and delivers the body and headers exactly', async () => {
    receiver.respond = () => ({ status: 200, body: 'thanks' });
    const r = await requester().post(receiver.url('/hooks?x=1'), SIGNED, BODY);
    expect(r).to.include({ ok: true, responseStatus: 200, error: null, retryAfterMs: null });
    expect(r.durationMs).to.be.a('number').and.at.least(0);
    const [got] = receiver.requests;
    expect(got!.method).to.equal('POST');
    expect(got!.path).to.equal('/hooks?x=1');
    expect(got!.body.equals(Buffer.from(BODY, 'utf8'))).to.equal(true);
    expect(got!.headers).to.include({
      'content-type': 'application/json',
      'user-agent': 'lattice-mail-webhooks/1',
      'content-length': String(Buffer.byteLength(BODY)),
      host: `localhost:${receiver.port}`,
      ...SIGNED,
    });
  });

  it('fails a non-2xx with its status, and does not follow a redirect', async () => {
    receiver.respond = () => ({ status: 401, body: 'who are you' });
    expect(await requester().post(receiver.url(), SIGNED, BODY)).to.include({
      ok: false,
      responseStatus: 401,
      error: 'HTTP 401',
    });
    receiver.respond = (req) =>
      req.path === '/old' ? { status: 302, headers: { location: receiver.url('/new') } } : { status: 200 };
    expect(await requester().post(receiver.url('/old'), SIGNED, BODY)).to.include({
      ok: false,
      responseStatus: 302,
      error: 'HTTP 302',
    });
    expect(receiver.requests.map((r) => r.path)).to.deep.equal(['/', '/old']);
  });

  it('gives up at the time limit, and takes an answer that comes in time', async () => {
    const timeoutMs = 300;

    // No answer yet when the limit comes: still pending 1 ms before it, a failure at it.
    const late = gate();
    receiver.respond = () => ({ status: 200, hold: late.promise });
    const lateScheduler = new ManualScheduler();
    const latePost = watch(
      requester(allowing, timeoutMs, { scheduler: lateScheduler }).post(receiver.url(), SIGNED, BODY),
    );
    await receiver.waitFor(1);
    await lateScheduler.advanceAsync(timeoutMs - 1);
    expect(latePost.result, 'settled before the limit').to.equal(undefined);
    await lateScheduler.advanceAsync(1);
    expect(latePost.result, 'still pending at the limit').to.not.equal(undefined);
    failedWithout(latePost.result!);
    expect(latePost.result!.error).to.equal('no answer within 300 ms');
    expect(latePost.result!.durationMs).to.equal(timeoutMs);
    late.release(); // the attempt has dropped the connection: this answer goes nowhere

    // The answer comes 1 ms inside the limit: it counts, and the limit's timer is gone.
    const inTime = gate();
    receiver.respond = () => ({ status: 200, hold: inTime.promise });
    const inTimeScheduler = new ManualScheduler();
    const inTimePost = requester(allowing, timeoutMs, { scheduler: inTimeScheduler }).post(
      receiver.url(),
      SIGNED,
      BODY,
    );
    await receiver.waitFor(2);
    await inTimeScheduler.advanceAsync(timeoutMs - 1);
    inTime.release();
    const r = await inTimePost;
    expect(r).to.include({ ok: true, responseStatus: 200, error: null });
    expect(r.durationMs).to.equal(timeoutMs - 1);
    expect(inTimeScheduler.pendingTimers()).to.equal(0);
  });

  it('does not wait beyond the limit for a body that never ends, keeping the status', async () => {
    const timeoutMs = 400;
    receiver.respond = () => ({ status: 200, endless: true });
    const scheduler = new ManualScheduler();
    const headReceived = answerHeadReceived('/endless');
    const post = watch(
      requester(allowing, timeoutMs, { scheduler }).post(receiver.url('/endless'), SIGNED, BODY),
    );
    expect(await headReceived).to.equal(200);
    await scheduler.advanceAsync(timeoutMs - 1);
    expect(post.result, 'settled before the limit').to.equal(undefined);
    await scheduler.advanceAsync(1);
    expect(post.result, 'still pending at the limit').to.not.equal(undefined);
    expect(post.result).to.include({ ok: true, responseStatus: 200, error: null });
    expect(post.result!.durationMs).to.equal(timeoutMs);
  });

  it('keeps the status of an answer with a big body, reading only the cap', async () => {
    receiver.respond = () => ({ status: 201, body: Buffer.alloc(1024 * 1024, 'x') });
    const started = receiver.tlsConnections;
    const r1 = requester();
    expect(await r1.post(receiver.url(), SIGNED, BODY)).to.include({ ok: true, responseStatus: 201 });
    receiver.respond = () => ({ status: 500, body: Buffer.alloc(1024 * 1024, 'x') });
    expect(await r1.post(receiver.url(), SIGNED, BODY)).to.include({ ok: false, responseStatus: 500 });
    // The connection was dropped rather than drained, so the second post needed a new one.
    expect(receiver.tlsConnections - started).to.equal(2);
  });

  it('fails on a certificate it cannot verify, without a status', async () => {
    const untrusted = await startHttpsReceiver({ untrusted: true });
    try {
      const r = await requester().post(untrusted.url(), SIGNED, BODY);
      failedWithout(r);
      expect(r.error).to.equal('certificate: self-signed certificate');
      expect(untrusted.requests).to.have.length(0);
    } finally {
      await untrusted.close();
    }
  });

  it('fails on a refused connection, without a status', async () => {
    const gone = await startHttpsReceiver();
    const url = gone.url();
    await gone.close();
    const r = await requester().post(url, SIGNED, BODY);
    failedWithout(r);
    expect(r.error).to.match(/^connection refused \(/);
  });

  it('refuses private targets unless allowed, in every form', async () => {
    const port = receiver.port;
    const urls = [
      `https://127.0.0.1:${port}/`,
      `https://[::1]:${port}/`,
      `https://localhost:${port}/`,
      `https://[::ffff:127.0.0.1]:${port}/`,
    ];
    for (const url of urls) {
      const r = await requester(strict).post(url, SIGNED, BODY);
      failedWithout(r);
      expect(r.error, url).to.match(/a private address \(loopback/);
    }
    expect(receiver.requests).to.have.length(0);
    for (const url of urls) {
      expect(await requester(allowing).post(url, SIGNED, BODY), url).to.include({
        ok: true,
        responseStatus: 204,
      });
    }
    expect(receiver.requests).to.have.length(urls.length);
  });

  it('refuses a metadata address even when private targets are allowed', async () => {
    const r = await requester(allowing).post('https://169.254.169.254/latest/meta-data/', SIGNED, BODY);
    failedWithout(r);
    expect(r.error).to.equal('169.254.169.254 is a forbidden address (cloud metadata)');
    expect(r.durationMs).to.be.below(1000); // no lookup, no connection
  });

  it('refuses at the attempt a name that now resolves to a private address (DNS rebinding)', async () => {
    let answer = '93.184.216.34';
    const lookup: HostLookup = async () => [{ address: answer, family: 4 }];
    const guard = createTargetGuard({ allowPrivateTargets: false, lookup });
    const url = `https://hooks.example.com:${receiver.port}/`;
    expect(await guard.checkUrl(url)).to.deep.equal({ ok: true });
    answer = '127.0.0.1';
    const r = await requester(guard).post(url, SIGNED, BODY);
    failedWithout(r);
    expect(r.error).to.equal('hooks.example.com resolves to a private address (loopback)');
    expect(receiver.requests).to.have.length(0);
  });

  it('reuses one TLS connection for attempts to the same checked address, never across addresses', async () => {
    const answers = ['127.0.0.1', '127.0.0.1', '::1', '127.0.0.1'];
    const lookup: HostLookup = async () => {
      const address = answers.shift()!;
      return [{ address, family: address.includes(':') ? 6 : 4 }];
    };
    const r = requester(createTargetGuard({ allowPrivateTargets: true, lookup }));
    const before = receiver.tlsConnections;
    for (let i = 0; i < 4; i += 1) {
      expect(await r.post(receiver.url(), SIGNED, BODY)).to.include({ ok: true });
    }
    // 127.0.0.1 twice over one connection, ::1 on its own, then the 127.0.0.1 one again.
    expect(receiver.tlsConnections - before).to.equal(2);
    expect(receiver.requests.map((q) => q.remoteAddress)).to.deep.equal([
      '::ffff:127.0.0.1',
      '::ffff:127.0.0.1',
      '::1',
      '::ffff:127.0.0.1',
    ]);
  });

  it('connects to the checked address whichever way Node asks the lookup', async () => {
    // Node asks for every address (`all: true`) when it may race IPv4 and IPv6, else for one.
    const lookup: HostLookup = async () => [{ address: '::1', family: 6 }];
    const guard = createTargetGuard({ allowPrivateTargets: true, lookup });
    const autoSelect = getDefaultAutoSelectFamily();
    try {
      for (const raceFamilies of [true, false]) {
        setDefaultAutoSelectFamily(raceFamilies);
        // A requester each: a pooled connection would not ask the lookup again.
        expect(await requester(guard).post(receiver.url(), SIGNED, BODY)).to.include({ ok: true });
      }
    } finally {
      setDefaultAutoSelectFamily(autoSelect);
    }
    expect(receiver.requests.map((q) => q.remoteAddress)).to.deep.equal(['::1', '::1']);
  });

  it('gives a fresh connection one go when a pooled one was closed under the request', async () => {
    const r = requester();
    expect(await r.post(receiver.url(), SIGNED, BODY)).to.include({ ok: true });
    const before = receiver.tlsConnections;
    let hangUps = 1;
    receiver.respond = () => (hangUps-- > 0 ? { hangUp: true } : { status: 204 });
    expect(await r.post(receiver.url(), SIGNED, BODY)).to.include({ ok: true, responseStatus: 204 });
    expect(receiver.tlsConnections - before).to.equal(1);
    expect(receiver.requests).to.have.length(3);

    // On a fresh connection the same hang-up is the receiver's doing: a failure, not retried.
    receiver.respond = () => ({ hangUp: true });
    const fresh = await requester().post(receiver.url(), SIGNED, BODY);
    failedWithout(fresh);
    expect(fresh.error).to.equal('connection closed before an answer');
    expect(receiver.requests).to.have.length(4);
  });

  it('reads Retry-After on 429 and 503 only', async () => {
    receiver.respond = () => ({ status: 429, headers: { 'retry-after': '120' } });
    expect(await requester().post(receiver.url(), SIGNED, BODY)).to.include({
      ok: false,
      responseStatus: 429,
      retryAfterMs: 120_000,
    });
    const at = new Date(Date.now() + 60_000);
    receiver.respond = () => ({ status: 503, headers: { 'retry-after': at.toUTCString() } });
    const dated = await requester().post(receiver.url(), SIGNED, BODY);
    expect(dated.responseStatus).to.equal(503);
    expect(dated.retryAfterMs).to.be.within(55_000, 60_000);
    receiver.respond = () => ({ status: 500, headers: { 'retry-after': '120' } });
    expect(await requester().post(receiver.url(), SIGNED, BODY)).to.include({
      responseStatus: 500,
      retryAfterMs: null,
    });
  });

  it('fails without a request when the host does not resolve', async () => {
    const r = await requester(strict).post('https://does-not-exist.invalid/', SIGNED, BODY);
    failedWithout(r);
    expect(r.error).to.match(/^does-not-exist\.invalid did not resolve/);
  });
});
