// `lattice mcp`: the agent tools over stdio, driven by the MCP SDK's own Client and its stdio
// transport (the way an MCP client starts a local server). Its tools are the API's catalog, one to
// one, and a call answers what the REST call answers; a refusal is isError with the REST error
// body; without LATTICE_API_KEY it will not start.
import { catalogRoutes } from '@lattice/http';
import { startTestManagement, type TestManagement } from '@lattice/management/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect } from 'chai';
import { LATTICE_BIN, run } from '../support/lattice-process.ts';

describe('lattice mcp (agent tools over stdio)', function () {
  this.timeout(60_000);
  let t: TestManagement;
  let owner: string;
  let client: Client;

  before(async () => {
    t = await startTestManagement();
    owner = (await t.newProduct('mcp-stdio')).owner_token;
    client = new Client({ name: 'lattice-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [LATTICE_BIN, 'mcp'],
        env: {
          ...(process.env as Record<string, string>),
          LATTICE_API_KEY: owner,
          LATTICE_BASE_URL: t.server.url,
          LOG_LEVEL: 'warn',
        },
        stderr: 'ignore',
      }),
    );
  });
  after(async () => {
    await client?.close();
    await t?.close();
  });

  it('serves the catalog’s operations as tools, one to one, and calls them as REST answers them', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name).sort()).to.deep.equal(
      catalogRoutes(t.routes)
        .map((r) => r.operationId)
        .sort(),
    );
    const viaTool = (await client.callTool({ name: 'organization_product_get', arguments: {} })) as {
      content: Array<{ text: string }>;
      isError?: boolean;
    };
    expect(viaTool.isError).to.not.equal(true);
    expect(JSON.parse(viaTool.content[0]!.text)).to.deep.equal(
      (await t.call('GET', '/organization/product', owner)).json,
    );
    const refused = (await client.callTool({ name: 'mail_domain_get', arguments: { id: 'nope' } })) as {
      content: Array<{ text: string }>;
      isError?: boolean;
    };
    expect(refused.isError).to.equal(true);
    expect(JSON.parse(refused.content[0]!.text)).to.deep.equal(
      (await t.call('GET', '/mail/domains/nope', owner)).json,
    );
  });

  it('will not start without LATTICE_API_KEY', async () => {
    const { code, stderr } = await run(['mcp'], { LATTICE_API_KEY: '', LATTICE_BASE_URL: t.server.url });
    expect(code).to.equal(2);
    expect(stderr).to.include('LATTICE_API_KEY');
  });
});
