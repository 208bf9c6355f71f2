// The agent tools over MCP's Streamable HTTP, driven by the MCP SDK's own Client: the tools are the
// catalog's operations one to one (tool names = route table = OpenAPI operationIds), a call answers
// what the REST call answers, refusals come back as isError with the REST error body, a request
// without a credential is 401, a foreign Host is refused, and nothing is kept per session.
import { request } from 'node:http';
import { catalogRoutes } from '@lattice/http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'chai';
import { startTestManagement, type TestManagement } from '../testing/test-management.ts';

interface ToolResult {
  content: Array<{ type: string; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

describe('management API: agent tools over MCP (Streamable HTTP)', function () {
  this.timeout(30_000);
  let t: TestManagement;
  let owner: string;
  let productId: string;
  const clients: Client[] = [];

  before(async () => {
    // As behind a reverse proxy that serves the API as api.lattice.example (MANAGEMENT_PUBLIC_HOSTS).
    t = await startTestManagement({ settings: { publicHosts: ['api.lattice.example'] } });
    const made = await t.newProduct('mcp');
    owner = made.owner_token;
    productId = made.product_id;
  });
  after(async () => {
    for (const c of clients) await c.close();
    await t?.close();
  });

  async function connect(token: string): Promise<Client> {
    const client = new Client({ name: 'lattice-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  }
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as ToolResult;

  it('lists one tool per catalog operation, named by its operationId (route table = OpenAPI = tools)', async () => {
    const client = await connect(owner);
    const { tools } = await client.listTools();
    const toolNames = tools.map((x) => x.name).sort();
    const routeNames = catalogRoutes(t.routes)
      .map((r) => r.operationId)
      .sort();
    const openApi = (
      await t.call<{ paths: Record<string, Record<string, { operationId: string }>> }>('GET', '/openapi.json')
    ).json;
    const openApiNames = Object.values(openApi.paths)
      .flatMap((ops) => Object.values(ops).map((op) => op.operationId))
      .sort();
    expect(toolNames).to.deep.equal(routeNames);
    expect(toolNames).to.deep.equal(openApiNames);
    expect(toolNames.every((n) => n.length <= 64)).to.equal(true);
    const get = tools.find((x) => x.name === 'mail_webhook_get')!;
    expect(get.annotations).to.include({ readOnlyHint: true, destructiveHint: false });
    expect(tools.find((x) => x.name === 'mail_webhook_delete')!.annotations).to.include({
      destructiveHint: true,
    });
    expect(tools.find((x) => x.name === 'organization_public-keys_revoke')!.annotations).to.include({
      destructiveHint: true,
    });
    // Input schemas stand alone: no $ref left in them.
    expect(JSON.stringify(tools.map((x) => x.inputSchema))).to.not.include('$ref');
  });

  it('a tool call answers what the REST call answers', async () => {
    const client = await connect(owner);
    const viaTool = await call(client, 'organization_product_get');
    const viaRest = await t.call('GET', '/organization/product', owner);
    expect(viaTool.isError).to.not.equal(true);
    expect(JSON.parse(viaTool.content[0]!.text)).to.deep.equal(viaRest.json);
    expect(viaTool.structuredContent).to.deep.equal(viaRest.json);

    // Path parameters, query parameters and body fields side by side in one flat object.
    const made = await call(client, 'mail_suppression_create', { address: 'ann@example.org' });
    expect(made.structuredContent).to.include({ address: 'ann@example.org', reason: 'manual' });
    const listed = await call(client, 'mail_suppression_list', { limit: 1 });
    expect(listed.structuredContent).to.deep.equal(
      (await t.call('GET', '/mail/suppressions?limit=1', owner)).json as unknown as Record<string, unknown>,
    );
    const removed = await call(client, 'mail_suppression_delete', { address: 'ann@example.org' });
    expect(removed.isError).to.not.equal(true);
    const again = await call(client, 'mail_suppression_delete', { address: 'ann@example.org' });
    expect(again.isError).to.equal(true);
    expect(again.structuredContent).to.deep.include({
      error: {
        code: 'not_found',
        message: 'This address is not on the suppression list',
        step: 'suppressions',
      },
    });
    expect(productId).to.be.a('string');
  });

  it('bad input and a member on an Owner/Admin tool come back as isError with the REST error body', async () => {
    const client = await connect(owner);
    const bad = await call(client, 'mail_suppression_create', { address: 'not an address' });
    const rest = await t.call('POST', '/mail/suppressions', owner, { address: 'not an address' });
    expect(bad.isError).to.equal(true);
    expect(rest.status).to.equal(400);
    expect(bad.structuredContent).to.deep.equal(rest.json);

    const member = await t.newMember(productId, 'member');
    const asMember = await connect(member.token);
    const refused = await call(asMember, 'organization_public-keys_create', {
      name: 'x',
      scope: { kind: 'product' },
    });
    expect(refused.isError).to.equal(true);
    expect((refused.structuredContent as { error: { code: string } }).error.code).to.equal('forbidden');
  });

  it('answers 401 without a credential and with a bad one, as REST does', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    for (const authorization of [undefined, 'Bearer lmt_not_a_token']) {
      const res = await fetch(`${t.server.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(authorization ? { authorization } : {}),
        },
        body: JSON.stringify(initialize),
      });
      expect(res.status, authorization ?? 'none').to.equal(401);
      const body = (await res.json()) as { error: { code: string } };
      expect(body.error.code).to.equal(authorization ? 'invalid_token' : 'missing_token');
    }
  });

  /**
   * POSTs `body` to /mcp; the whole answer. With `declaredBytes`, Content-Length says that many
   * while only `body` is sent: an answer can then only come from a server that did not wait for
   * the body.
   */
  function rawPost(
    headers: Record<string, string>,
    body: Buffer | string,
    declaredBytes?: number,
  ): Promise<{ status: number; type: string; text: string }> {
    return new Promise((resolve, reject) => {
      const url = new URL(`${t.server.url}/mcp`);
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: '/mcp',
          method: 'POST',
          headers: { ...headers, 'content-length': String(declaredBytes ?? Buffer.byteLength(body)) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            resolve({
              status: res.statusCode ?? 0,
              type: String(res.headers['content-type'] ?? ''),
              text: Buffer.concat(chunks).toString('utf8'),
            });
            req.destroy();
          });
        },
      );
      // The server may answer and close before the whole body is sent: that is the point.
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
      });
      if (declaredBytes === undefined) req.end(body);
      else req.write(body);
    });
  }

  it('checks the credential before reading the body: a 20 MB body without one is answered 401 JSON before it is sent', async () => {
    for (const authorization of [undefined, 'Bearer lmt_not_a_token']) {
      const res = await rawPost(
        {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(authorization ? { authorization } : {}),
        },
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"',
        20 * 1024 * 1024,
      );
      expect(res.status, authorization ?? 'none').to.equal(401);
      expect(res.type).to.match(/^application\/json/);
      expect(JSON.parse(res.text).error.code).to.equal(authorization ? 'invalid_token' : 'missing_token');
    }
  });

  it('answers a bad body with the JSON error body, never HTML, a stack or a path', async () => {
    const auth = { authorization: `Bearer ${owner}`, accept: 'application/json, text/event-stream' };
    const cases: Array<[string, Record<string, string>, string, number, string]> = [
      ['malformed JSON', { 'content-type': 'application/json' }, '{"jsonrpc":', 400, 'invalid_json'],
      [
        'an unknown charset',
        { 'content-type': 'application/json; charset=latin9' },
        '{}',
        415,
        'unsupported_media_type',
      ],
      ['not JSON', { 'content-type': 'text/plain' }, 'hello', 415, 'unsupported_media_type'],
      [
        'compressed',
        { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        'xx',
        415,
        'unsupported_content_encoding',
      ],
    ];
    for (const [what, headers, body, status, code] of cases) {
      const res = await rawPost({ ...auth, ...headers }, body);
      expect(res.status, what).to.equal(status);
      expect(res.type, what).to.match(/^application\/json/);
      expect(res.text, what).to.not.match(/<html|node_modules|\bat [^ ]+:\d+|\/work\//i);
      expect(JSON.parse(res.text).error.code, what).to.equal(code);
    }
    const over = Buffer.alloc(20 * 1024 * 1024 + 1, 0x20);
    const res = await rawPost({ ...auth, 'content-type': 'application/json' }, over);
    expect(res.status).to.equal(413);
    expect(JSON.parse(res.text).error.code).to.equal('payload_too_large');
  });

  it('is stateless (no mcp-session-id) and refuses a Host that is not its own', async () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    const post = (host: string) =>
      new Promise<{ status: number; session: string | undefined }>((resolve, reject) => {
        const url = new URL(`${t.server.url}/mcp`);
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: '/mcp',
            method: 'POST',
            headers: {
              host,
              authorization: `Bearer ${owner}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
            },
          },
          (res) => {
            res.resume();
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                session: res.headers['mcp-session-id'] as string | undefined,
              }),
            );
          },
        );
        req.on('error', reject);
        req.end(initialize);
      });
    const own = await post(new URL(t.server.url).host);
    expect(own).to.deep.equal({ status: 200, session: undefined });
    const rebound = await post(`attacker.example:${new URL(t.server.url).port}`);
    expect(rebound.status).to.equal(403);
    expect((await post('api.lattice.example')).status).to.equal(200);
    expect(
      (await fetch(`${t.server.url}/mcp`, { headers: { authorization: `Bearer ${owner}` } })).status,
    ).to.equal(405);
  });
});
