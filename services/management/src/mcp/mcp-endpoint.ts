// `{base_url}/mcp`: the management API's operations as MCP tools over Streamable HTTP
// (docs/management-api.md "Agent tools (MCP)"). Stateless: every POST gets a fresh server and
// transport, no `mcp-session-id`, so any replica answers any call. The Bearer credential is
// checked as for REST (401 without one) before a byte of the body is read, the body is read as
// every route reads one (request-body.ts: 413, 415, 400 as the JSON error body), and each tool
// call is sent to this API's own router with that credential (tool-dispatch.ts). A Host that is
// not this API's own is refused (DNS rebinding).
import type { IncomingMessage } from 'node:http';
import { ApiError } from '@lattice/core';
import {
  type Authenticator,
  bodyReader,
  clientErrorOf,
  REQUEST_ID_HEADER,
  type RouteDef,
  requestIdOf,
  type SchemaRegistry,
  type ToolDefinition,
} from '@lattice/http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import express, { type Router } from 'express';
import { toolAnswer, toolRequest } from './tool-dispatch.ts';

export interface McpEndpointDeps {
  tools: readonly ToolDefinition[];
  /** The catalog routes, by operationId. */
  routes: readonly RouteDef[];
  schemas: SchemaRegistry;
  authenticate: Authenticator;
  /** The catalog version, as the server's version. */
  version: string;
  /** Host headers accepted besides this server's own addresses (a reverse proxy's name). */
  publicHosts: readonly string[];
}

/** Request bodies of /mcp: a JSON-RPC message (or batch) with a tool's arguments. */
const MCP_BODY_LIMIT_BYTES = 20 * 1024 * 1024;

function annotationsOf(route: RouteDef) {
  const destructive = route.method === 'DELETE' || route.operationId.endsWith('_revoke');
  return {
    readOnlyHint: route.method === 'GET',
    destructiveHint: destructive,
    idempotentHint: route.method === 'GET' || route.method === 'PUT' || route.method === 'DELETE',
    openWorldHint: false,
  };
}

/** The addresses this API answers on, as a Host header names them. */
function ownHosts(req: IncomingMessage, publicHosts: readonly string[]): string[] {
  const port = req.socket.localPort;
  const local = req.socket.localAddress ?? '';
  const hosts = ['127.0.0.1', 'localhost', '[::1]'];
  if (local && local !== '::' && local !== '0.0.0.0') hosts.push(local.includes(':') ? `[${local}]` : local);
  return [...hosts.flatMap((h) => [`${h}:${port}`, ...(port === 80 ? [h] : [])]), ...publicHosts];
}

/** Where a tool call's REST request goes: this very server, on the address the call came in. */
function selfOrigin(req: IncomingMessage): string {
  let address = req.socket.localAddress ?? '127.0.0.1';
  if (address.startsWith('::ffff:')) address = address.slice('::ffff:'.length);
  return `http://${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort}`;
}

export function mcpRouter(deps: McpEndpointDeps): Router {
  const byName = new Map(deps.routes.map((r) => [r.operationId, r]));
  const router = express.Router();

  const readBody = bodyReader({ json: true, limitBytes: MCP_BODY_LIMIT_BYTES });
  router.post('/mcp', async (req, res, next) => {
    let body: unknown;
    try {
      await deps.authenticate(req);
      body = await readBody(req, res);
    } catch (err) {
      const refusal = err instanceof ApiError ? err : clientErrorOf(err);
      if (refusal) {
        res.status(refusal.status).set(refusal.headers).json(refusal.toBody());
        return;
      }
      next(err);
      return;
    }
    const authorization = String(req.headers.authorization);
    // A tool call's REST request carries the /mcp request's id: one id in the log for both.
    const requestId = requestIdOf(res);
    const origin = selfOrigin(req);
    const server = new Server({ name: 'lattice', version: deps.version }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: deps.tools.map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema as { type: 'object' },
        annotations: annotationsOf(byName.get(t.name)!),
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (call) => {
      const route = byName.get(call.params.name);
      if (!route) {
        return toolAnswer(
          404,
          JSON.stringify({
            error: { code: 'not_found', message: `No tool named ${call.params.name}`, step: 'tool' },
          }),
        );
      }
      let rest: ReturnType<typeof toolRequest>;
      try {
        rest = toolRequest(route, call.params.arguments ?? {}, deps.schemas);
      } catch (err) {
        if (err instanceof ApiError) return toolAnswer(err.status, JSON.stringify(err.toBody()));
        throw err;
      }
      const answer = await fetch(`${origin}${rest.path}`, {
        method: rest.method,
        headers: {
          ...rest.headers,
          authorization,
          ...(requestId === undefined ? {} : { [REQUEST_ID_HEADER]: requestId }),
          ...(rest.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(rest.body === undefined ? {} : { body: rest.body }),
      });
      return toolAnswer(answer.status, await answer.text());
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      enableDnsRebindingProtection: true,
      allowedHosts: ownHosts(req, deps.publicHosts),
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch (err) {
      next(err);
    }
  });
  // Stateless: no stream to resume and no session to end.
  router.all('/mcp', (_req, res) => {
    res
      .status(405)
      .set('Allow', 'POST')
      .json({
        error: {
          code: 'method_not_allowed',
          message: 'The MCP endpoint is stateless: POST only',
          step: 'mcp',
        },
      });
  });
  return router;
}
