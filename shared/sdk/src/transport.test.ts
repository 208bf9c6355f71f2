import { expect } from 'chai';
import { LatticeError } from './errors.ts';
import type { OperationSpec } from './operation.ts';
import { errorAnswer, fakeFetch, json, recordingSleep } from './testing/fake-fetch.ts';
import { createTransport, type TransportOptions } from './transport.ts';

const send: OperationSpec = {
  id: 'mail_email_send',
  method: 'POST',
  path: '/mail/emails',
  headers: ['Idempotency-Key'],
  body: 'fields',
  idempotent: true,
};
const create: OperationSpec = {
  id: 'organization_public-keys_create',
  method: 'POST',
  path: '/organization/public-keys',
  body: 'fields',
};
const read: OperationSpec = {
  id: 'mail_email_get',
  method: 'GET',
  path: '/mail/emails/{id}',
  params: ['id'],
};
const EMAIL = { from: 'a@example.org', to: 'b@example.net', subject: 'Hi', text: 'x' };

function transport(answers: Parameters<typeof fakeFetch>, options: Partial<TransportOptions> = {}) {
  const fake = fakeFetch(...answers);
  const slept = recordingSleep();
  const call = createTransport({
    baseUrl: 'http://lattice.test/',
    headers: { authorization: 'Bearer lmt_test' },
    fetch: fake.fetch,
    sleep: slept.sleep,
    random: () => 1,
    ...options,
  });
  return { call, requests: fake.requests, waits: slept.waits };
}

async function rejection(promise: Promise<unknown>): Promise<LatticeError> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(LatticeError);
    return err as LatticeError;
  }
  throw new Error('expected a rejection');
}

describe('transport: retries, idempotency keys, errors', () => {
  it('honours Retry-After (seconds) on 429, then answers the JSON body', async () => {
    const t = transport([
      errorAnswer(429, 'send_rate_exceeded', { 'retry-after': '2' }),
      json(202, { id: 'e1' }),
    ]);
    expect(await t.call(send, EMAIL)).to.deep.equal({ id: 'e1' });
    expect(t.waits).to.deep.equal([2000]);
    expect(t.requests).to.have.length(2);
  });

  it('retries 503 with exponential backoff (capped) when there is no Retry-After', async () => {
    const t = transport([errorAnswer(503, 'send_unavailable')], {
      baseDelayMs: 100,
      maxDelayMs: 300,
      maxRetries: 3,
    });
    const err = await rejection(t.call(send, EMAIL));
    // random() = 1: the whole delay each time; 100, 200, then the cap.
    expect(t.waits).to.deep.equal([100, 200, 300]);
    expect(err.status).to.equal(503);
    expect(err.code).to.equal('send_unavailable');
  });

  it('keeps the backoff between half and all of the delay', async () => {
    const low = transport([errorAnswer(503, 'x'), json(200, {})], { baseDelayMs: 1000, random: () => 0 });
    await low.call(read, { id: 'e' });
    expect(low.waits).to.deep.equal([500]);
  });

  it('sends the same generated Idempotency-Key on every retry of a keyed operation', async () => {
    const t = transport([
      errorAnswer(503, 'send_unavailable'),
      errorAnswer(429, 'send_rate_exceeded'),
      json(202, { id: 'e1' }),
    ]);
    await t.call(send, EMAIL);
    const keys = t.requests.map((r) => r.headers.get('idempotency-key'));
    expect(keys).to.have.length(3);
    expect(keys[0]).to.match(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).to.equal(1);
    expect(JSON.parse(t.requests[0]!.body!)).to.deep.equal(EMAIL);
  });

  it('makes a new key per call, and keeps a key the caller gives (argument or header)', async () => {
    const t = transport([json(202, { id: 'e1' })]);
    await t.call(send, EMAIL);
    await t.call(send, EMAIL);
    await t.call(send, { ...EMAIL, 'Idempotency-Key': 'order-1042' });
    await t.call(send, EMAIL, { headers: { 'idempotency-key': 'order-1043' } });
    const keys = t.requests.map((r) => r.headers.get('idempotency-key'));
    expect(keys[0]).to.not.equal(keys[1]);
    expect(keys.slice(2)).to.deep.equal(['order-1042', 'order-1043']);
    // A header argument is a header, never a body field.
    expect(JSON.parse(t.requests[2]!.body!)).to.deep.equal(EMAIL);
  });

  it('sends no Idempotency-Key on operations that take none', async () => {
    const t = transport([errorAnswer(503, 'x'), json(201, { id: 'k' })]);
    await t.call(create, { name: 'n', scope: { kind: 'toolkit', toolkit: 'mail' } });
    expect(t.requests.map((r) => r.headers.has('idempotency-key'))).to.deep.equal([false, false]);
  });

  it('gives up after maxRetries with the last answer as a LatticeError', async () => {
    const t = transport([errorAnswer(503, 'send_unavailable', { 'x-request-id': 'req-7' })], {
      maxRetries: 2,
    });
    const err = await rejection(t.call(send, EMAIL));
    expect(t.requests).to.have.length(3);
    expect(err).to.include({ status: 503, code: 'send_unavailable', step: 'test', requestId: 'req-7' });
    expect(err.message).to.equal('send_unavailable happened');
  });

  it('takes maxRetries per call, and 0 turns retries off', async () => {
    const t = transport([errorAnswer(429, 'limited', { 'retry-after': '1' })]);
    await rejection(t.call(send, EMAIL, { maxRetries: 0 }));
    expect(t.requests).to.have.length(1);
  });

  it('does not wait for a Retry-After beyond a minute: the error comes at once', async () => {
    const t = transport([errorAnswer(429, 'limited', { 'retry-after': '3600' })]);
    const err = await rejection(t.call(send, EMAIL));
    expect(err.status).to.equal(429);
    expect(t.waits).to.deep.equal([]);
  });

  it('never retries other errors', async () => {
    for (const status of [400, 401, 404, 409, 422, 500]) {
      const t = transport([errorAnswer(status, 'nope')]);
      expect((await rejection(t.call(send, EMAIL))).status).to.equal(status);
      expect(t.requests).to.have.length(1);
    }
  });

  it('parses the error body: code, message, step, fields and X-Request-Id', async () => {
    const fields = [{ path: 'body.name', message: 'must NOT have fewer than 1 characters' }];
    const t = transport([
      errorAnswer(400, 'validation_error', { 'x-request-id': 'abc' }, { step: 'validation', fields }),
    ]);
    const err = await rejection(t.call(create, { name: '' }));
    expect(err).to.include({ status: 400, code: 'validation_error', step: 'validation', requestId: 'abc' });
    expect(err.fields).to.deep.equal(fields);
    expect(err.name).to.equal('LatticeError');
  });

  it('turns an answer without the error body into unexpected_response', async () => {
    const t = transport([
      new Response('<html>bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }),
    ]);
    const err = await rejection(t.call(read, { id: 'e' }));
    expect(err).to.include({ status: 502, code: 'unexpected_response', step: 'response', requestId: null });
    expect(err.message).to.equal('HTTP 502 Bad Gateway: <html>bad gateway</html>');
    expect(err.fields).to.deep.equal([]);
  });

  it('retries a request without an answer only where repeating it is harmless', async () => {
    const down = () => {
      throw new TypeError('fetch failed');
    };
    const get = transport([down, json(200, { id: 'e' })]);
    expect(await get.call(read, { id: 'e' })).to.deep.equal({ id: 'e' });
    const keyed = transport([down, json(202, { id: 'e' })]);
    expect(await keyed.call(send, EMAIL)).to.deep.equal({ id: 'e' });
    const unkeyed = transport([down, json(201, {})]);
    const err = await rejection(unkeyed.call(create, { name: 'n' }));
    expect(err).to.include({ status: 0, code: 'connection_failed', step: 'transport', requestId: null });
    expect(unkeyed.requests).to.have.length(1);
  });

  it('builds the request: path parameters encoded, query, credential, JSON body; 204 answers undefined', async () => {
    const op: OperationSpec = {
      id: 'x_y_update',
      method: 'PATCH',
      path: '/things/{id}/parts/{part}',
      params: ['id', 'part'],
      query: ['limit', 'cursor'],
      body: 'fields',
    };
    const t = transport([new Response(null, { status: 204 })]);
    const answer = await t.call(op, {
      id: 'a/b c',
      part: 7,
      limit: 5,
      cursor: undefined,
      name: 'n',
      flag: false,
    });
    expect(answer).to.equal(undefined);
    const req = t.requests[0]!;
    expect(req.method).to.equal('PATCH');
    expect(`${req.url}`).to.equal('http://lattice.test/things/a%2Fb%20c/parts/7?limit=5');
    expect(req.headers.get('authorization')).to.equal('Bearer lmt_test');
    expect(req.headers.get('content-type')).to.equal('application/json');
    expect(req.headers.get('user-agent')).to.match(/^lattice-sdk-node\/\d/);
    expect(JSON.parse(req.body!)).to.deep.equal({ name: 'n', flag: false });
  });

  it('refuses a call without a path parameter before sending anything', async () => {
    const t = transport([json(200, {})]);
    try {
      await t.call(read, {});
      expect.fail('expected a TypeError');
    } catch (err) {
      expect(err).to.be.instanceOf(TypeError);
    }
    expect(t.requests).to.have.length(0);
  });

  it('stops waiting and trying when the caller aborts', async () => {
    const controller = new AbortController();
    const t = transport([errorAnswer(503, 'x')], {
      sleep: async () => {
        controller.abort(new Error('stop'));
      },
    });
    try {
      await t.call(read, { id: 'e' }, { signal: controller.signal });
      expect.fail('expected the abort');
    } catch (err) {
      expect((err as Error).message).to.equal('stop');
    }
    expect(t.requests).to.have.length(1);
  });
});
