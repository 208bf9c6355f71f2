// Webhook endpoints through the management API on real PostgreSQL: the secret answered once and
// stored sealed, every validation rule at both sides, the URL target check, the endpoint state
// table (enabled, disabled, enabled again, deleted), one product's endpoints only, and which
// credentials reach them (deliveries and operator actions: mail-webhook-delivery-routes.int.test.ts).
import { type ErrorBody, openSecret, parseSecretKeys } from '@lattice/core';
import { captureLogs, LEVEL, testConfig } from '@lattice/core/testing';
import { type Listening, listen } from '@lattice/http/testing';
import { WEBHOOK_EVENT_NAMES, WEBHOOK_SECRET_PURPOSE } from '@lattice/mail';
import { createMailHttpWithoutSending } from '@lattice/mail/testing';
import { createRealtimeHttpWithoutPublishing } from '@lattice/realtime/testing';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { createManagementApp } from '../app.ts';
import { startTestManagement, type TestManagement } from '../testing/test-management.ts';
import { silentKeyChangeNotifier } from '../testing.ts';
import type { webhookEndpointView } from './mail-webhook-routes.ts';

type EndpointJson = ReturnType<typeof webhookEndpointView>;
type CreatedJson = EndpointJson & { secret: string };
interface ListJson {
  data: EndpointJson[];
  next_cursor: string | null;
}

const PATH = '/mail/webhooks';
const URL_OK = 'https://hooks.example.com/lattice';
const VALID = { url: URL_OK, events: ['email.bounced', 'email.delivered'] };
const EVENT_MESSAGE = `must be one of ${WEBHOOK_EVENT_NAMES.join(', ')}`;

describe('mail webhook endpoints (management API, real PostgreSQL)', () => {
  let t: TestManagement;
  // The suite's keyring: the test database's realtime signing keys are sealed with it.
  const { secretKeys } = testConfig();

  before(async () => {
    t = await startTestManagement({ config: { secretKeys } });
  });
  after(() => t?.close());

  const create = (token: string, body: unknown) => t.call<CreatedJson>('POST', PATH, token, body);
  const update = (token: string, id: string, body: unknown) =>
    t.call<EndpointJson>('PATCH', `${PATH}/${id}`, token, body);
  const list = (token: string, query = '') => t.call<ListJson>('GET', `${PATH}${query}`, token);
  const row = async (id: string) => t.db('mail_webhook_endpoints').where({ id }).first();
  const refusal = (r: { status: number; json: unknown; text: string }) => {
    expect(r.status, r.text).to.equal(400);
    const { error } = r.json as ErrorBody;
    expect(error).to.include({ code: 'validation_error', step: 'validation' });
    return error.fields;
  };

  it('creates an enabled endpoint and answers its whsec_ secret once; reads never show it', async () => {
    const p = await t.newProduct('wh-create');
    const r = await create(p.owner_token, { ...VALID, description: 'Bounces to the CRM' });
    expect(r.status, r.text).to.equal(201);
    const { secret, ...endpoint } = r.json;
    expect(endpoint).to.deep.equal({
      id: endpoint.id,
      url: URL_OK,
      events: ['email.bounced', 'email.delivered'],
      description: 'Bounces to the CRM',
      enabled: true,
      created_at: endpoint.created_at,
    });
    expect(Number.isNaN(Date.parse(endpoint.created_at))).to.equal(false);
    expect(secret).to.match(/^whsec_[A-Za-z0-9+/]+=*$/);
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    expect(key.length).to.be.at.least(24);
    expect(key.toString('base64')).to.equal(secret.slice('whsec_'.length));

    const got = await t.call<EndpointJson>('GET', `${PATH}/${endpoint.id}`, p.owner_token);
    expect(got.status).to.equal(200);
    expect(got.json).to.deep.equal(endpoint);
    const listed = await list(p.owner_token);
    expect(listed.json).to.deep.equal({ data: [endpoint], next_cursor: null });
    const changed = await update(p.owner_token, endpoint.id, { description: null });
    expect(changed.json).to.deep.equal({ ...endpoint, description: null });
    const key6 = secret.slice(6, 20);
    for (const text of [got.text, listed.text, changed.text]) expect(text).to.not.include(key6);

    // Stored sealed under the keyring, never as the plaintext; it opens to the secret answered.
    const stored = await row(endpoint.id);
    expect(stored.secret_sealed).to.be.a('string').and.not.include(key6);
    expect(stored.secret_sealed.startsWith(`${parseSecretKeys(secretKeys).currentKid}.`)).to.equal(true);
    expect(openSecret(parseSecretKeys(secretKeys), WEBHOOK_SECRET_PURPOSE, stored.secret_sealed)).to.equal(
      secret,
    );
    // Two endpoints never share a secret.
    const other = await create(p.owner_token, VALID);
    expect(other.json.secret).to.not.equal(secret);
  });

  it('takes every event name, description null or absent, and enabled false', async () => {
    const p = await t.newProduct('wh-fields');
    const all = await create(p.owner_token, { url: URL_OK, events: [...WEBHOOK_EVENT_NAMES].reverse() });
    expect(all.status, all.text).to.equal(201);
    expect(all.json.events).to.deep.equal([...WEBHOOK_EVENT_NAMES].reverse());
    expect(all.json.description).to.equal(null);
    const off = await create(p.owner_token, { ...VALID, description: null, enabled: false });
    expect(off.status, off.text).to.equal(201);
    expect(off.json).to.include({ enabled: false, description: null });
    expect((await row(off.json.id)).disabled_reason).to.equal('manual');
  });

  describe('validation (400 validation_error naming the field)', () => {
    let token: string;
    let id: string;
    before(async () => {
      const p = await t.newProduct('wh-valid');
      token = p.owner_token;
      id = (await create(token, VALID)).json.id;
    });

    it('url: https only, at most 2048 characters, a URL', async () => {
      const at = (n: number) =>
        `https://hooks.example.com/${'a'.repeat(n - 'https://hooks.example.com/'.length)}`;
      for (const url of [at(2048), 'HTTPS://Hooks.Example.com/x?y=1#z', 'https://hooks.example.com:8443/']) {
        const r = await create(token, { ...VALID, url });
        expect(r.status, url).to.equal(201);
        expect(r.json.url).to.equal(url);
        expect((await update(token, id, { url })).status, url).to.equal(200);
      }
      const schemaRefusals: Array<[unknown, string]> = [
        [at(2049), 'must NOT have more than 2048 characters'],
        ['http://hooks.example.com/', 'must be an https:// URL without spaces; plain http is refused'],
        ['ftp://hooks.example.com/', 'must be an https:// URL without spaces; plain http is refused'],
        ['https://', 'must be an https:// URL without spaces; plain http is refused'],
        ['https://hooks.example.com/a b', 'must be an https:// URL without spaces; plain http is refused'],
        ['hooks.example.com', 'must be an https:// URL without spaces; plain http is refused'],
        [7, 'must be string'],
        [null, 'must be string'],
      ];
      for (const [url, message] of schemaRefusals) {
        for (const r of [await create(token, { ...VALID, url }), await update(token, id, { url })]) {
          expect(refusal(r), String(url)).to.deep.equal([{ path: 'body.url', message }]);
        }
      }
      for (const url of ['https://[::1', 'https://exa%mple.com/']) {
        expect(refusal(await create(token, { ...VALID, url })), url).to.deep.equal([
          { path: 'body.url', message: 'is not a valid URL' },
        ]);
      }
      expect(refusal(await create(token, { events: VALID.events }))).to.deep.equal([
        { path: 'body.url', message: 'is required' },
      ]);
    });

    it('events: a non-empty list of known names, each once', async () => {
      const cases: Array<[unknown, { path: string; message: string }[]]> = [
        [[], [{ path: 'body.events', message: 'must name at least one event' }]],
        [['email.bounced', 'email.sent'], [{ path: 'body.events[1]', message: EVENT_MESSAGE }]],
        [['bounced'], [{ path: 'body.events[0]', message: EVENT_MESSAGE }]],
        [['email.opened', 'email.opened'], [{ path: 'body.events', message: 'must name each event once' }]],
        ['email.opened', [{ path: 'body.events', message: 'must be array' }]],
      ];
      for (const [events, fields] of cases) {
        expect(refusal(await create(token, { url: URL_OK, events })), JSON.stringify(events)).to.deep.equal(
          fields,
        );
        expect(refusal(await update(token, id, { events })), JSON.stringify(events)).to.deep.equal(fields);
      }
      expect(refusal(await create(token, { url: URL_OK }))).to.deep.equal([
        { path: 'body.events', message: 'is required' },
      ]);
      const one = await update(token, id, { events: ['email.clicked'] });
      expect(one.status, one.text).to.equal(200);
      expect(one.json.events).to.deep.equal(['email.clicked']);
    });

    it('description: up to 1000 characters, counted as characters, not bytes', async () => {
      const emoji = '\u{1F4E8}'; // 4 bytes in UTF-8, 2 UTF-16 units, 1 character
      for (const description of ['d'.repeat(1000), emoji.repeat(1000), 'é'.repeat(1000), '']) {
        const r = await create(token, { ...VALID, description });
        expect(r.status, description.slice(0, 3)).to.equal(201);
        expect(r.json.description).to.equal(description);
        expect((await update(token, id, { description })).json.description).to.equal(description);
      }
      for (const description of ['d'.repeat(1001), emoji.repeat(1001), 'é'.repeat(1001)]) {
        const fields = [{ path: 'body.description', message: 'must NOT have more than 1000 characters' }];
        expect(refusal(await create(token, { ...VALID, description }))).to.deep.equal(fields);
        expect(refusal(await update(token, id, { description }))).to.deep.equal(fields);
      }
      expect(refusal(await create(token, { ...VALID, description: 5 }))).to.deep.equal([
        { path: 'body.description', message: 'must be string,null' },
      ]);
    });

    it('enabled: a boolean; unknown fields refused; an update sets at least one field', async () => {
      for (const enabled of ['true', 1, null]) {
        const fields = [{ path: 'body.enabled', message: 'must be boolean' }];
        expect(refusal(await create(token, { ...VALID, enabled }))).to.deep.equal(fields);
        expect(refusal(await update(token, id, { enabled }))).to.deep.equal(fields);
      }
      for (const extra of ['secret', 'id', 'Url']) {
        const fields = [{ path: `body.${extra}`, message: 'is not allowed' }];
        expect(refusal(await create(token, { ...VALID, [extra]: 'x' }))).to.deep.equal(fields);
        expect(refusal(await update(token, id, { enabled: true, [extra]: 'x' }))).to.deep.equal(fields);
      }
      expect(refusal(await update(token, id, {}))).to.deep.equal([
        { path: 'body', message: 'must set url, events, description or enabled' },
      ]);
    });
  });

  describe('an app with its own target check and no Kafka behind it', () => {
    const logs = captureLogs({ name: 'wh-app', level: 'warn' });
    const checked: string[] = [];
    const reason = 'resolves to 10.0.0.5, a private address';
    let server: Listening;
    let token: string;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, text, json: JSON.parse(text) as unknown };
    };

    before(async () => {
      const { logger } = logs;
      server = await listen(
        createManagementApp({
          db: t.db,
          logger,
          registry: new Registry(),
          keyChanges: silentKeyChangeNotifier,
          realtime: createRealtimeHttpWithoutPublishing({
            db: t.db,
            logger,
            keyring: parseSecretKeys(secretKeys),
            gatewayUrls: testConfig().gatewayUrls,
          }),
          secretKeys: parseSecretKeys(secretKeys),
          mail: testConfig().mail,
          // Its webhook wakes always fail.
          mailHttp: createMailHttpWithoutSending({ db: t.db }),
          webhookTargets: {
            async checkUrl(url) {
              checked.push(url);
              return url.includes('internal') ? { ok: false, reason } : { ok: true };
            },
          },
        }),
      );
      token = (await t.newProduct('wh-app')).owner_token;
    });
    after(() => server?.close());

    it('answers a refused target as 400 naming body.url with the check’s reason, at create and update', async () => {
      const blocked = 'https://internal.example.com/hook';
      expect(refusal(await call('POST', PATH, { ...VALID, url: blocked }))).to.deep.equal([
        { path: 'body.url', message: reason },
      ]);
      const ok = await call('POST', PATH, VALID);
      expect(ok.status, ok.text).to.equal(201);
      const id = (ok.json as EndpointJson).id;
      expect(refusal(await call('PATCH', `${PATH}/${id}`, { url: blocked }))).to.deep.equal([
        { path: 'body.url', message: reason },
      ]);
      expect((await call('PATCH', `${PATH}/${id}`, { description: 'no url, no check' })).status).to.equal(
        200,
      );
      // Refused before anything was stored; updates without a url are not checked.
      expect(checked).to.deep.equal([blocked, URL_OK, blocked]);
      expect(((await call('GET', PATH)).json as ListJson).data.map((e) => e.url)).to.deep.equal([URL_OK]);
      // A schema refusal never reaches the check.
      expect(
        refusal(await call('POST', PATH, { ...VALID, url: 'http://internal.example.com/' })),
      ).to.have.length(1);
      expect(checked).to.have.length(3);
    });

    it('still answers an operator action when the actor cannot be woken, and logs it', async () => {
      const id = ((await call('POST', PATH, VALID)).json as EndpointJson).id;
      const r = await call('POST', `${PATH}/${id}/test`, {});
      expect(r.status, r.text).to.equal(202);
      const delivery = r.json as { id: string; status: string };
      expect(delivery.status).to.equal('pending');
      expect(await t.db('mail_webhook_deliveries').where({ id: delivery.id }).first()).to.include({
        status: 'pending',
        endpoint_id: id,
      });
      expect(logs.at(LEVEL.warn).map((l) => l.msg)).to.include(
        'could not wake the webhook endpoint actor; its wake sweep will find the deliveries',
      );
    });
  });

  describe('the endpoint states', () => {
    it('enabled → disabled (manual) → enabled again with the failure count reset → deleted (404 everywhere)', async () => {
      const p = await t.newProduct('wh-states');
      const created = (await create(p.owner_token, VALID)).json;
      expect(created.enabled).to.equal(true);

      const off = await update(p.owner_token, created.id, { enabled: false });
      expect(off.status).to.equal(200);
      expect(off.json).to.deep.equal({ ...webhookView(created), enabled: false });
      expect(await row(created.id)).to.include({ enabled: false, disabled_reason: 'manual' });

      // As the endpoint actor leaves one it disabled after three deliveries failed for good.
      await t
        .db('mail_webhook_endpoints')
        .where({ id: created.id })
        .update({ consecutive_failures: 3, disabled_reason: 'failures' });
      const again = await update(p.owner_token, created.id, { enabled: false });
      expect(again.json.enabled).to.equal(false);
      expect(await row(created.id)).to.include({ disabled_reason: 'failures', consecutive_failures: 3 });
      const before = (await row(created.id)).updated_at as Date;

      const on = await update(p.owner_token, created.id, { enabled: true });
      expect(on.json).to.deep.equal(webhookView(created));
      const enabledRow = await row(created.id);
      expect(enabledRow).to.include({ enabled: true, consecutive_failures: 0, disabled_reason: null });
      expect((enabledRow.updated_at as Date).getTime()).to.be.above(before.getTime());

      // Enabled already: the failure count the actor keeps is left alone.
      await t.db('mail_webhook_endpoints').where({ id: created.id }).update({ consecutive_failures: 2 });
      await update(p.owner_token, created.id, { enabled: true, url: `${URL_OK}/v2` });
      expect(await row(created.id)).to.include({ consecutive_failures: 2, url: `${URL_OK}/v2` });

      const del = await t.call('DELETE', `${PATH}/${created.id}`, p.owner_token);
      expect(del.status).to.equal(204);
      expect(del.text).to.equal('');
      expect(await row(created.id)).to.include({ enabled: false });
      expect((await row(created.id)).deleted_at).to.be.instanceOf(Date);
      for (const [method, path, body] of endpointOperations(created.id)) {
        const r = await t.call(method, path, p.owner_token, body);
        expect(r.status, `${method} ${path}`).to.equal(404);
        expect(r.json.error, `${method} ${path}`).to.include({ code: 'not_found', step: 'webhooks' });
      }
      expect((await list(p.owner_token)).json).to.deep.equal({ data: [], next_cursor: null });
    });

    it('answers 404 for another product’s endpoint, an unknown id and a malformed id alike', async () => {
      const a = await t.newProduct('wh-a');
      const b = await t.newProduct('wh-b');
      const mine = (await create(a.owner_token, VALID)).json;
      for (const id of [mine.id, '6f1c1a9e-8d0b-4f57-9a51-0c1d2e3f4a5b', 'not-a-uuid', 'x'.repeat(128)]) {
        for (const [method, path, body] of endpointOperations(id)) {
          const r = await t.call(method, path, b.owner_token, body);
          expect(r.status, `${method} ${path}`).to.equal(404);
          expect(r.json.error, `${method} ${path}`).to.include({ code: 'not_found', step: 'webhooks' });
        }
      }
      expect((await list(b.owner_token)).json.data).to.deep.equal([]);
      expect((await t.call<EndpointJson>('GET', `${PATH}/${mine.id}`, a.owner_token)).json).to.deep.equal(
        webhookView(mine),
      );
      expect(await row(mine.id)).to.include({ enabled: true, url: URL_OK });
    });
  });

  it('lists newest first with the last id as cursor, at both sides of the limit bounds', async () => {
    const p = await t.newProduct('wh-page');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.unshift((await create(p.owner_token, { ...VALID, description: `n${i}` })).json.id);
    }
    // Deleting the cursor's endpoint does not lose the place.
    const first = await list(p.owner_token, '?limit=1');
    expect(first.json.data.map((e) => e.id)).to.deep.equal([ids[0]]);
    expect(first.json.next_cursor).to.equal(ids[0]);
    await t.call('DELETE', `${PATH}/${ids[0]}`, p.owner_token);
    const second = await list(p.owner_token, `?limit=2&cursor=${first.json.next_cursor}`);
    expect(second.json.data.map((e) => e.id)).to.deep.equal([ids[1], ids[2]]);
    const rest = await list(p.owner_token, `?limit=100&cursor=${second.json.next_cursor}`);
    expect(rest.json).to.deep.include({ next_cursor: null });
    expect(rest.json.data.map((e) => e.id)).to.deep.equal([ids[3], ids[4]]);
    expect((await list(p.owner_token)).json.data).to.have.length(4);
    for (const query of ['?limit=0', '?limit=101', '?limit=x', '?cursor=abc', '?other=1']) {
      const r = await t.call('GET', `${PATH}${query}`, p.owner_token);
      expect(r.status, query).to.equal(400);
      expect(r.json.error.code, query).to.equal('validation_error');
    }
  });

  it('is reached by member tokens and full_access mail keys; sending_access and realtime keys get 401', async () => {
    const p = await t.newProduct('wh-auth');
    const member = await t.newMember(p.product_id, 'member');
    const mailKey = async (scope: string) =>
      (await t.call<{ key: string }>('POST', '/mail/api-keys', p.owner_token, { name: scope, scope })).json
        .key;
    const full = await mailKey('full_access');
    const sending = await mailKey('sending_access');
    const rtk = (await t.call<{ key: string }>('POST', '/realtime/api-keys', p.owner_token, {})).json.key;

    for (const [who, token] of [
      ['member token', member.token],
      ['full_access lmk_', full],
    ] as const) {
      const made = await create(token, VALID);
      expect(made.status, who).to.equal(201);
      expect((await t.call('GET', `${PATH}/${made.json.id}`, token)).status, who).to.equal(200);
      expect((await update(token, made.json.id, { enabled: false })).status, who).to.equal(200);
      expect((await t.call('DELETE', `${PATH}/${made.json.id}`, token)).status, who).to.equal(204);
    }

    const kept = (await create(p.owner_token, VALID)).json;
    for (const [who, token] of [
      ['sending_access lmk_', sending],
      ['rtk_', rtk],
    ] as const) {
      for (const [method, path, body] of [
        ['POST', PATH, VALID] as const,
        ['GET', PATH, undefined] as const,
        ...endpointOperations(kept.id),
      ]) {
        const r = await t.call(method, path, token, body);
        expect(r.status, `${who} ${method} ${path}`).to.equal(401);
        expect(r.json.error, `${who} ${method} ${path}`).to.include({
          code: 'restricted_api_key',
          step: 'authorization',
        });
      }
    }
    expect((await list(p.owner_token)).json.data).to.deep.equal([webhookView(kept)]);
    expect((await t.call('GET', PATH)).status, 'no credential').to.equal(401);
  });
});

/** The answer of a creation without its secret. */
function webhookView(created: CreatedJson | EndpointJson): EndpointJson {
  const { secret: _secret, ...endpoint } = created as CreatedJson;
  return endpoint;
}

/** Every operation on one endpoint, with a body each accepts. */
function endpointOperations(id: string): Array<readonly [string, string, unknown]> {
  const at = `${PATH}/${id}`;
  return [
    ['GET', at, undefined],
    ['PATCH', at, { enabled: true }],
    ['DELETE', at, undefined],
    ['GET', `${at}/deliveries`, undefined],
    ['POST', `${at}/deliveries/6f1c1a9e-8d0b-4f57-9a51-0c1d2e3f4a5b/retry`, undefined],
    ['POST', `${at}/recover`, { since: '2026-01-01T00:00:00Z' }],
    ['POST', `${at}/test`, {}],
  ];
}
