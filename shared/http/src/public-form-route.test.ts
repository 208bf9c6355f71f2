import { createLogger, type ErrorBody } from '@lattice/core';
import { expect } from 'chai';
import express from 'express';
import { errorMiddleware } from './error-mapping.ts';
import { bindPublicRoutes, type PublicHandler } from './public-handlers.ts';
import { PUBLIC_ROUTES } from './public-routes.ts';
import { loadSchemaRegistry } from './schema-registry.ts';
import { type Listening, listen, rawHttp } from './testing.ts';

// The one-click unsubscribe route takes RFC 8058's form body through the public route runner;
// the other keyless mail routes still take none. Served as the edge serves them (the runner of
// each route, the shared error mapping), without the edge's key and limit steps.
describe('public route runner: form bodies', () => {
  let server: Listening;
  const seen: unknown[] = [];
  const echo: PublicHandler = ({ body }) => {
    seen.push(body);
    return { status: 200, body: { body: body ?? null } };
  };

  before(async () => {
    const routes = bindPublicRoutes(
      [{ public_mail_unsubscribe: echo, public_mail_unsubscribe_page: echo }],
      loadSchemaRegistry(),
    );
    const app = express();
    for (const operationId of ['public_mail_unsubscribe', 'public_mail_unsubscribe_page']) {
      const route = PUBLIC_ROUTES.find((r) => r.operationId === operationId)!;
      const method = route.method === 'GET' ? 'get' : 'post';
      app[method]('/unsubscribe/:token', (req, res, next) => {
        Promise.resolve(
          routes.runnerFor(route)({
            environment: 'production',
            productId: 'p',
            params: { token: String(req.params.token) },
            keyId: null,
            req,
            res,
          }),
        ).catch(next);
      });
    }
    app.use(
      errorMiddleware(createLogger({ name: 'form-route-test', level: 'silent' }), { logApiErrors: false }),
    );
    server = await listen(app);
  });
  after(() => server.close());

  async function post(body: string | FormData | undefined, headers: Record<string, string> = {}) {
    const res = await fetch(`${server.baseUrl}/unsubscribe/tok`, { method: 'POST', headers, body });
    return { status: res.status, json: (await res.json()) as { body?: unknown } & Partial<ErrorBody> };
  }

  it('reads the one-click body urlencoded and as multipart, and an empty body as {}', async () => {
    const urlencoded = await post('List-Unsubscribe=One-Click', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(urlencoded).to.deep.equal({ status: 200, json: { body: { 'List-Unsubscribe': 'One-Click' } } });
    const form = new FormData();
    form.append('List-Unsubscribe', 'One-Click');
    expect((await post(form)).json).to.deep.equal({ body: { 'List-Unsubscribe': 'One-Click' } });
    expect((await post(undefined)).json).to.deep.equal({ body: {} });
  });

  it('refuses another value of List-Unsubscribe with 400 validation_error naming it', async () => {
    const r = await post('List-Unsubscribe=Maybe', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(r.status).to.equal(400);
    expect(r.json.error).to.include({ code: 'validation_error', step: 'validation' });
    expect(r.json.error?.fields?.map((f) => f.path)).to.deep.equal(['body.List-Unsubscribe']);
  });

  it('refuses JSON with 415, a body over the 64 KiB cap with 413 (the cap itself passes), gzip with 415', async () => {
    const json = await post('{"List-Unsubscribe":"One-Click"}', { 'content-type': 'application/json' });
    expect(json.status).to.equal(415);
    expect(json.json.error).to.include({ code: 'unsupported_media_type', step: 'body_parsing' });
    const type = { 'content-type': 'application/x-www-form-urlencoded' };
    const filler = (bytes: number) => `List-Unsubscribe=One-Click&x=${'a'.repeat(bytes - 29)}`;
    expect(filler(65_536)).to.have.length(65_536);
    expect((await post(filler(65_536), type)).status).to.equal(200);
    const over = await post(filler(65_537), type);
    expect(over.status).to.equal(413);
    expect(over.json.error).to.include({ code: 'payload_too_large' });
    const gzip = await post('x', { ...type, 'content-encoding': 'gzip' });
    expect(gzip.status).to.equal(415);
    expect(gzip.json.error).to.include({ code: 'unsupported_content_encoding' });
    const broken = await post('--x\r\nno end', { 'content-type': 'multipart/form-data; boundary=x' });
    expect(broken.status).to.equal(400);
    expect(broken.json.error).to.include({ code: 'invalid_form' });
  });

  it('keeps the confirmation page (GET) body-less: a form there is 400 unexpected_body', async () => {
    const r = await rawHttp(
      server.port,
      'GET /unsubscribe/tok HTTP/1.1\r\nHost: t\r\nConnection: close\r\n' +
        'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 26\r\n\r\nList-Unsubscribe=One-Click',
    );
    expect(r.status).to.equal(400);
    expect((r.json as ErrorBody).error.code).to.equal('unexpected_body');
    const get = await fetch(`${server.baseUrl}/unsubscribe/tok`);
    expect(await get.json()).to.deep.equal({ body: null });
  });
});
