// `lattice mcp`: the management API's agent tools over stdio (decisions.md "Agent tools and the
// dashboard"), for MCP clients that start a local process. It bridges to the API's own Streamable
// HTTP endpoint (`LATTICE_BASE_URL/mcp`, default the local management API) with the credential of
// LATTICE_API_KEY, so the tools, their checks and their answers are the API's and nothing here can
// drift from them. Standard output carries MCP only; logs go to standard error.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CommandContext } from '../context.ts';

export async function runMcp({ config, logger }: CommandContext): Promise<number> {
  const { baseUrl, apiKey } = config.agent;
  if (apiKey === '') {
    console.error('lattice mcp: set LATTICE_API_KEY to a management credential (lmt_, lmk_ or rtk_)');
    return 2;
  }
  const upstream = new Client({ name: 'lattice-mcp-stdio', version: '1.0.0' });
  try {
    await upstream.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
        requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
      }),
    );
  } catch (err) {
    console.error(`lattice mcp: cannot reach ${baseUrl}/mcp: ${(err as Error).message}`);
    return 1;
  }
  const server = new Server(
    { name: 'lattice', version: upstream.getServerVersion()?.version ?? '0' },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => upstream.listTools(request.params));
  server.setRequestHandler(CallToolRequestSchema, (request) => upstream.callTool(request.params));
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(new StdioServerTransport());
  logger.info({ baseUrl }, 'lattice mcp: serving the management API tools on stdio');
  await closed;
  await upstream.close();
  return 0;
}
