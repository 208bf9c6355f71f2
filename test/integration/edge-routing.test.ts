// Routing and hostile input at the public edge, on both environments: keyless routes pass with
// no key read, unknown paths 404, wrong methods 405 with Allow, routes without a toolkit handler
// 501 after their checks, malformed input a 4xx with the error body (never a 5xx), and nothing
// in any answer telling the two environments apart.
import { connect } from 'node:net';
import { ENVIRONMENTS, type Environment } from '@lattice/core';
import { ManualClock } from '@lattice/core/testing';
import type { RunningEdge } from '@lattice/edge';
import { expect } from 'chai';
import {
  type Answer,
  bearer,
  call,
  type Echo,
  type EdgeSuite,
  echoToolkits,
  edgeSuite,
  errorOf,
} from './edge/harness.ts';

const KEYLESS = [
  ['GET', '/mail/t/open/tok-1'],
  ['GET', '/mail/t/click/tok-1'],
  ['GET', '/mail/unsubscribe/tok-1'],
  ['POST', '/mail/unsubscribe/tok-1'],
] as const;

/** Sends raw bytes and returns the raw answer once the server closes: for requests fetch refuses to send. */
function rawRequest(edge: RunningEdge, bytes: string): Promise<string> {
  const { port } = new URL(edge.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => {
      answer += d;
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    // Not end(): Node aborts a request whose client half-closes before the answer is written.
    socket.write(bytes);
  });
}

const statusOf = (raw: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);

describe('public edge: routing and bad input', () => {
  let suite: EdgeSuite;
  let productId: string;
  const edges = {} as Record<Environment, RunningEdge>;
  const bare = {} as Record<Environment, RunningEdge>;
  const keys = {} as Record<Environment, string>;

  before(async () => {
    suite = await edgeSuite();
    productId = await suite.newProduct();
    // The bare pair answers the same requests in turn and their answers are compared whole, so
    // they share one clock held 20 s before a minute rolls: the RateLimit reset cannot tick
    // between the two answers.
    const clock = new ManualClock(Math.floor(Date.now() / 60_000) * 60_000 + 40_000);
    for (const environment of ENVIRONMENTS) {
      keys[environment] = (await suite.createKey({ productId, environment })).secret;
      edges[environment] = await suite.startEdge(environment, {
        toolkits: echoToolkits(),
        notifications: false,
      });
      // No toolkit registered: what the edge answers today.
      bare[environment] = await suite.startEdge(environment, { notifications: false, clock });
    }
  });
  after(async () => suite?.close());

  for (const environment of ENVIRONMENTS) {
    describe(`${environment} edge`, () => {
      it('keyless routes pass without a key, read none, and still strip any sent', async () => {
        for (const [method, path] of KEYLESS) {
          const plain = await call(edges[environment], method, `/${productId}${path}`);
          expect(plain.status, `${method} ${path}`).to.equal(200);
          expect((plain.body as Echo).keyId).to.equal(null);
          // Even a key that would be refused does not matter here: it is never read.
          const withKey = await call(edges[environment], method, `/${productId}${path}`, {
            ...bearer('lpk_0123456789abcdef0123456789abcdef'),
            'x-api-key': 'junk',
          });
          expect(withKey.status).to.equal(200);
          const echo = withKey.body as Echo;
          expect(echo.headers).to.not.have.any.keys('authorization', 'x-public-key', 'x-api-key');
          expect(echo.params).to.deep.equal({ token: 'tok-1' });
        }
      });

      it('404 not_found for paths that are no public route, before any key check', async () => {
        for (const path of [
          `/${productId}/mail/nothing`,
          `/${productId}/mail/emails/1/2`,
          `/${productId}/mail/emails/`,
          `/${productId}/billing/emails`,
          `/${productId}/mail`,
          `/${productId}`,
          '/',
          '/favicon.ico',
        ]) {
          const answer = await call(edges[environment], 'GET', path);
          expect(answer.status, path).to.equal(404);
          expect(errorOf(answer)).to.include({ code: 'not_found', step: 'routing' });
        }
      });

      it('405 method_not_allowed with Allow for a known path and another method', async () => {
        const cases = [
          ['POST', '/mail/emails/1', 'GET, HEAD'],
          ['GET', '/mail/emails', 'POST'],
          ['DELETE', '/mail/unsubscribe/t', 'GET, HEAD, POST'],
          ['PUT', '/realtime/messages', 'POST'],
          ['OPTIONS', '/realtime/tokens/issue', 'POST'],
        ] as const;
        for (const [method, path, allow] of cases) {
          const answer = await call(
            edges[environment],
            method,
            `/${productId}${path}`,
            bearer(keys[environment]),
          );
          expect(answer.status, `${method} ${path}`).to.equal(405);
          expect(answer.headers.get('allow')).to.equal(allow);
          expect(errorOf(answer)).to.include({ code: 'method_not_allowed', step: 'routing' });
        }
      });

      it('HEAD is served as GET, with the GET route’s key check', async () => {
        const path = `/${productId}/realtime/channels/a:b/presence`;
        expect((await call(edges[environment], 'HEAD', path)).status).to.equal(401);
        expect((await call(edges[environment], 'HEAD', path, bearer(keys[environment]))).status).to.equal(
          200,
        );
      });

      it('without a toolkit handler every route answers 501 not_implemented, after its checks', async () => {
        const edge = bare[environment];
        const keyed = await call(
          edge,
          'POST',
          `/${productId}/realtime/tokens/issue`,
          bearer(keys[environment]),
        );
        expect(keyed.status).to.equal(501);
        expect(errorOf(keyed)).to.include({ code: 'not_implemented' });
        expect(errorOf(await call(edge, 'POST', `/${productId}/realtime/tokens/issue`))).to.include({
          code: 'public_key_required',
        });
        expect((await call(edge, 'GET', `/${productId}/mail/t/click/x`)).status).to.equal(501);
      });

      it('decodes path parameters and refuses malformed percent-encoding with 400', async () => {
        const ok = await call(
          edges[environment],
          'GET',
          `/${productId}/realtime/channels/news%3Asports/history`,
          bearer(keys[environment]),
        );
        expect((ok.body as Echo).params).to.deep.equal({ channel: 'news:sports' });
        for (const path of [
          `/${productId}/realtime/channels/%E0%A4%A/history`,
          '/%zz/mail/emails',
          `/${productId}/mail/t/open/%`,
        ]) {
          const answer = await call(edges[environment], 'GET', path, bearer(keys[environment]));
          expect(answer.status, path).to.equal(400);
          expect(errorOf(answer)).to.include({ code: 'bad_request', step: 'routing' });
        }
      });

      it('answers hostile HTTP with a 4xx error body, never a 5xx', async () => {
        const edge = edges[environment];
        const huge = await call(edge, 'GET', `/${productId}/mail/emails/1`, {
          'x-filler': 'a'.repeat(20_000),
        });
        expect(huge.status).to.equal(431);
        expect(errorOf(huge)).to.include({ code: 'headers_too_large' });
        const longUrl = await call(edge, 'GET', `/${productId}/mail/emails/${'x'.repeat(20_000)}`);
        expect(longUrl.status).to.be.within(400, 499);
        const garbage = await rawRequest(edge, 'GET /x HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n');
        expect(statusOf(garbage)).to.equal(400);
        expect(garbage).to.include('"code":"bad_request"');
        const absolute = await rawRequest(
          edge,
          `GET http://elsewhere.example/${productId}/mail/emails/1 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`,
        );
        expect(statusOf(absolute)).to.equal(401);
        const star = await rawRequest(edge, 'OPTIONS * HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n');
        expect(statusOf(star)).to.equal(404);
        const dotted = await rawRequest(
          edge,
          `GET /${productId}/mail/../../etc/passwd HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`,
        );
        expect(statusOf(dotted)).to.equal(404);
        const keyOnly = await call(edge, 'GET', `/${productId}/mail/emails/1`, {
          authorization: 'Bearer \u00e9\u00e9',
        });
        expect(keyOnly.status).to.be.within(400, 499);
      });
    });
  }

  it('nothing in an answer identifies the environment', async () => {
    const requests: Array<[string, string, Record<string, string>]> = [
      ['POST', `/${productId}/realtime/messages`, {}],
      ['POST', `/${productId}/realtime/messages`, bearer('lpk_0123456789abcdef0123456789abcdef')],
      ['POST', `/${productId}/realtime/messages`, bearer(keys.production)],
      ['POST', `/${productId}/realtime/messages`, bearer(keys.development)],
      ['GET', `/${productId}/nothing/here`, {}],
      ['PUT', `/${productId}/mail/emails`, {}],
      ['GET', `/${productId}/mail/t/open/x`, {}],
      ['GET', '/healthz', {}],
    ];
    const shape = (a: Answer) => {
      const headers = Object.fromEntries([...a.headers].filter(([name]) => name !== 'date'));
      return { status: a.status, headers, body: a.body };
    };
    for (const [method, path, sent] of requests) {
      // One request id for both, so their answers can be compared (each would make its own).
      const headers: Record<string, string> = { ...sent, 'x-request-id': `same ${method} ${path}` };
      const production = await call(bare.production, method, path, headers);
      const development = await call(bare.development, method, path, headers);
      if (path !== '/healthz')
        expect(production.headers.get('x-request-id')).to.equal(headers['x-request-id']);
      const text = JSON.stringify([shape(production), shape(development)]);
      expect(text).to.not.match(/production|development/i);
      // A key of one environment is refused by the other with the unknown key's answer.
      if (
        headers.authorization?.includes(keys.production) ||
        headers.authorization?.includes(keys.development)
      )
        continue;
      expect(shape(production), `${method} ${path}`).to.deep.equal(shape(development));
    }
    const prodKeyOnDev = await call(
      bare.development,
      'POST',
      `/${productId}/realtime/messages`,
      bearer(keys.production),
    );
    const devKeyOnProd = await call(
      bare.production,
      'POST',
      `/${productId}/realtime/messages`,
      bearer(keys.development),
    );
    expect(prodKeyOnDev.body).to.deep.equal(devKeyOnProd.body);
    expect(errorOf(prodKeyOnDev).code).to.equal('public_key_invalid');
  });
});
