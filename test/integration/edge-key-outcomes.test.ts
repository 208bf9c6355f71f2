// The public edge's key outcomes (spec "Errors → Public-edge key outcomes" and "Authentication →
// Public edge"), row by row, on both environments: where the key is read from, what a toolkit
// receives, and that every kind of wrong key gets one indistinguishable 401.
import { createLogger, ENVIRONMENTS, type Environment } from '@lattice/core';
import { testConfig } from '@lattice/core/testing';
import type { RunningEdge } from '@lattice/edge';
import { createDb } from '@lattice/store';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import {
  type Answer,
  bearer,
  call,
  type Echo,
  type EdgeSuite,
  echoToolkits,
  edgeSuite,
  errorOf,
  waitFor,
} from './edge/harness.ts';

const KEYED = { method: 'POST', path: '/realtime/messages' } as const;

function expectKeyOutcome(answer: Answer, status: number, code: string): void {
  expect(answer.status, JSON.stringify(answer.body)).to.equal(status);
  expect(errorOf(answer)).to.include({ code, step: 'public_key_check' });
}

function expectPassed(answer: Answer): Echo {
  expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
  return answer.body as Echo;
}

describe('public edge: key outcomes', () => {
  let suite: EdgeSuite;
  const edges = {} as Record<Environment, RunningEdge>;
  let productId: string;
  let otherProductId: string;
  /** Per environment: a product-wide key, a mail-only key, a key of another product. */
  const keys = {} as Record<Environment, { product: string; mailOnly: string; foreign: string; id: string }>;

  before(async () => {
    suite = await edgeSuite();
    productId = await suite.newProduct();
    otherProductId = await suite.newProduct();
    for (const environment of ENVIRONMENTS) {
      const product = await suite.createKey({ productId, environment });
      const mailOnly = await suite.createKey({
        productId,
        environment,
        scope: { kind: 'toolkit', toolkit: 'mail' },
      });
      const foreign = await suite.createKey({ productId: otherProductId, environment });
      keys[environment] = {
        product: product.secret,
        mailOnly: mailOnly.secret,
        foreign: foreign.secret,
        id: product.record.id,
      };
    }
    for (const environment of ENVIRONMENTS) {
      edges[environment] = await suite.startEdge(environment, {
        toolkits: echoToolkits(),
        notifications: false,
      });
    }
  });
  after(async () => suite?.close());

  for (const environment of ENVIRONMENTS) {
    const other: Environment = environment === 'production' ? 'development' : 'production';
    const send = (headers: Record<string, string> = {}, path = `/${productId}${KEYED.path}`) =>
      call(edges[environment], KEYED.method, path, headers);

    describe(`${environment} edge`, () => {
      it('passes an active key that covers the route, and tells the toolkit which key and product', async () => {
        const echo = expectPassed(await send(bearer(keys[environment].product)));
        expect(echo).to.include({ route: 'POST /realtime/messages', productId, keyId: keys[environment].id });
        expect(echo.environment).to.equal(environment);
      });

      it('401 public_key_required when no key is presented', async () => {
        expectKeyOutcome(await send(), 401, 'public_key_required');
      });

      it('ignores other Authorization schemes: alone they count as no key', async () => {
        const secret = keys[environment].product;
        for (const authorization of [`Basic ${secret}`, `Token ${secret}`, secret, 'Bearer', 'Bearer  '])
          expectKeyOutcome(await send({ authorization }), 401, 'public_key_required');
        // ...and beside another header they do not hide it.
        expectPassed(
          await send({
            authorization: `Basic ${Buffer.from('u:p').toString('base64')}`,
            'x-public-key': secret,
          }),
        );
      });

      it('never reads a key from the query string', async () => {
        const secret = keys[environment].product;
        for (const name of ['key', 'api_key', 'apiKey', 'public_key', 'access_token', 'token']) {
          const path = `/${productId}${KEYED.path}?${name}=${secret}`;
          expectKeyOutcome(await send({}, path), 401, 'public_key_required');
        }
      });

      it('reads Bearer first, then X-Public-Key, then X-Api-Key', async () => {
        const good = keys[environment].product;
        const bad = 'lpk_00000000000000000000000000000000';
        expectPassed(await send({ ...bearer(good), 'x-public-key': bad, 'x-api-key': bad }));
        expectKeyOutcome(
          await send({ ...bearer(bad), 'x-public-key': good, 'x-api-key': good }),
          401,
          'public_key_invalid',
        );
        expectPassed(await send({ 'x-public-key': good, 'x-api-key': bad }));
        expectKeyOutcome(await send({ 'x-public-key': bad, 'x-api-key': good }), 401, 'public_key_invalid');
        expectPassed(await send({ 'x-api-key': good }));
        // The scheme name is case-insensitive (RFC 9110).
        expectPassed(await send({ authorization: `bearer ${good}` }));
      });

      it('strips all three key headers before the toolkit, from headers, rawHeaders and headersDistinct', async () => {
        const secret = keys[environment].product;
        const echo = expectPassed(
          await send({ ...bearer(secret), 'x-public-key': secret, 'x-api-key': secret, 'x-trace': 't1' }),
        );
        for (const view of [echo.headers, echo.headersDistinct])
          expect(Object.keys(view)).to.not.include.members(['authorization', 'x-public-key', 'x-api-key']);
        expect(echo.headers['x-trace']).to.equal('t1');
        expect(echo.rawHeaders.map((h) => h.toLowerCase())).to.not.include.members([
          'authorization',
          'x-public-key',
          'x-api-key',
        ]);
        expect(JSON.stringify(echo)).to.not.include(secret.slice(4));
        // A non-Bearer Authorization is stripped too: the toolkit never sees any credential.
        const basic = expectPassed(await send({ authorization: 'Basic dTpw', 'x-api-key': secret }));
        expect(basic.headers).to.not.have.property('authorization');
      });

      it('401 public_key_invalid for unknown, mistyped, foreign-product and other-environment keys, all alike', async () => {
        const secret = keys[environment].product;
        const mistyped = `${secret.slice(0, -1)}${secret.endsWith('0') ? '1' : '0'}`;
        const answers = [
          await send(bearer('lpk_0123456789abcdef0123456789abcdef')),
          await send(bearer('not-even-a-key')),
          await send(bearer(mistyped)),
          await send(bearer(keys[environment].foreign)),
          await send(bearer(keys[other].product)),
          // The product's own key on another product's path.
          await send(bearer(secret), `/${otherProductId}${KEYED.path}`),
        ];
        for (const answer of answers) expectKeyOutcome(answer, 401, 'public_key_invalid');
        const first = answers[0]!;
        for (const answer of answers) {
          expect(answer.body).to.deep.equal(first.body);
          expect(answer.headers.get('content-length')).to.equal(first.headers.get('content-length'));
        }
        // A fixed generic message.
        expect(errorOf(first).message).to.equal('The public key is not valid.');
      });

      it('403 public_key_scope for an active key whose scope does not cover the route', async () => {
        const mailOnly = keys[environment].mailOnly;
        expectKeyOutcome(await send(bearer(mailOnly)), 403, 'public_key_scope');
        expectPassed(await call(edges[environment], 'POST', `/${productId}/mail/emails`, bearer(mailOnly)));
        expectPassed(await call(edges[environment], 'GET', `/${productId}/mail/emails/e1`, bearer(mailOnly)));
      });

      it('imported lmk_ and rtk_ keys are presented and work exactly like lpk_ keys', async () => {
        const lmk = await suite.createKey({
          productId,
          environment,
          prefix: 'lmk_',
          scope: { kind: 'toolkit', toolkit: 'mail' },
        });
        const rtk = await suite.createKey({
          productId,
          environment,
          prefix: 'rtk_',
          scope: { kind: 'toolkit', toolkit: 'realtime' },
        });
        await edges[environment].snapshots.reload();
        const edge = edges[environment];
        for (const headers of [
          bearer(lmk.secret),
          { 'x-public-key': lmk.secret },
          { 'x-api-key': lmk.secret },
        ]) {
          expect(expectPassed(await call(edge, 'POST', `/${productId}/mail/emails`, headers)).keyId).to.equal(
            lmk.record.id,
          );
          expectKeyOutcome(
            await call(edge, 'POST', `/${productId}/realtime/messages`, headers),
            403,
            'public_key_scope',
          );
        }
        for (const headers of [
          bearer(rtk.secret),
          { 'x-public-key': rtk.secret },
          { 'x-api-key': rtk.secret },
        ]) {
          expect(
            expectPassed(await call(edge, 'POST', `/${productId}/realtime/tokens/issue`, headers)).keyId,
          ).to.equal(rtk.record.id);
          expectKeyOutcome(
            await call(edge, 'GET', `/${productId}/mail/emails/1`, headers),
            403,
            'public_key_scope',
          );
        }
        expectKeyOutcome(
          await call(edges[other], 'POST', `/${productId}/mail/emails`, bearer(lmk.secret)),
          401,
          'public_key_invalid',
        );
      });
    });
  }

  describe('before the first snapshot', () => {
    for (const environment of ENVIRONMENTS) {
      it(`${environment}: keyed routes answer 503 public_config_unavailable (fail closed), keyless ones pass`, async () => {
        const logger = createLogger({ name: 'edge-test', level: 'silent' });
        // Nothing listens on port 1: every snapshot load fails.
        const unreachable = createDb({ databaseUrl: 'postgres://postgres@127.0.0.1:1/lattice_test', logger });
        try {
          const edge = await suite.startEdge(environment, {
            db: unreachable,
            logger,
            notifications: false,
            toolkits: echoToolkits(),
          });
          expect(edge.snapshots.current()).to.equal(null);
          for (const headers of [bearer(keys[environment].product), {}]) {
            const answer = await call(edge, 'POST', `/${productId}/realtime/messages`, headers);
            expect(answer.status).to.equal(503);
            expect(answer.body).to.deep.equal({
              error: {
                code: 'public_config_unavailable',
                message: 'Public key configuration is not loaded yet; retry with backoff.',
              },
            });
            expect(answer.headers.get('retry-after')).to.equal('1');
          }
          const keyless = await call(edge, 'GET', `/${productId}/mail/t/open/tok`);
          expect(keyless.status).to.equal(200);
          expect((await call(edge, 'GET', '/healthz')).status).to.equal(503);
        } finally {
          await suite.closeEdges();
          await unreachable.destroy();
        }
      });
    }
  });

  describe('once no load has succeeded for the maximum snapshot age', () => {
    for (const environment of ENVIRONMENTS) {
      it(`${environment}: keyed routes fail closed with 503, keyless ones pass, the age metric stays`, async () => {
        const logger = createLogger({ name: 'edge-test', level: 'silent' });
        // The edge's own pool: closed below, as when the edge loses the database and the
        // management API (another pool) goes on taking revocations.
        const edgeDb = createDb({ databaseUrl: testConfig().databaseUrl, logger });
        const registry = new Registry();
        try {
          const edge = await suite.startEdge(environment, {
            db: edgeDb,
            logger,
            registry,
            config: { snapshotRefreshMs: 200, snapshotMaxAgeMs: 1000 },
            notifications: false,
            toolkits: echoToolkits(),
          });
          const send = () =>
            call(edge, 'POST', `/${productId}/realtime/messages`, bearer(keys[environment].product));
          expect((await send()).status).to.equal(200);
          const lastLoadMs = Date.now();
          await edgeDb.destroy();
          const refused = await waitFor(send, (a) => a.status === 503, 10_000);
          expect(refused.status).to.equal(503);
          // Served for the maximum age after the last successful load, not withheld at once.
          expect(Date.now() - lastLoadMs).to.be.at.least(1000 - 250);
          expect(refused.body).to.deep.equal({
            error: {
              code: 'public_config_unavailable',
              message: 'Public key configuration is not loaded yet; retry with backoff.',
            },
          });
          expect((await call(edge, 'GET', `/${productId}/mail/t/open/tok`)).status).to.equal(200);
          expect((await call(edge, 'GET', '/healthz')).status).to.equal(503);
          const age = await registry.getSingleMetric('lattice_edge_key_snapshot_age_seconds')?.get();
          expect(age?.values.find((v) => v.labels.environment === environment)?.value).to.be.at.least(1);
        } finally {
          await suite.closeEdges();
          await edgeDb.destroy();
        }
      });
    }
  });
});
