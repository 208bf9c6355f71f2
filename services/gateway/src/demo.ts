// The local demo `lattice start` serves beside its production gateway: a chat page (two browser
// tabs talk through `demo:lobby` with presence and typing indicators), the browser client's
// bundle, and the two backend calls an integrator's server would make — minting a delegated
// token and publishing a message — done here for the demo product only. `lattice start gateway`
// never enables it: these routes mint tokens without a credential, which only a local demo may.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Environment, Logger } from '@lattice/core';
import type { RealtimeHttp } from '@lattice/realtime';
import { DEMO_PAGE_HTML } from './demo-page.ts';

export const DEMO_CHANNEL = 'demo:lobby';
const NAME = /^[A-Za-z0-9._-]{1,32}$/;
const BODY_MAX_BYTES = 4096;

export interface GatewayDemoSettings {
  productId: string;
}

export interface GatewayDemoDeps {
  environment: Environment;
  realtime: RealtimeHttp;
  /** The browser client as one ES module (built once, on first request). */
  bundle(): Promise<string>;
  logger: Logger;
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}

const json = (res: ServerResponse, status: number, value: unknown) =>
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));

const refuse = (res: ServerResponse, status: number, code: string, message: string) =>
  json(res, status, { error: { code, message, step: 'demo' } });

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_MAX_BYTES) return null;
    chunks.push(chunk);
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** Answers the demo's requests; false for any other request. */
export function createGatewayDemo(settings: GatewayDemoSettings, deps: GatewayDemoDeps) {
  let bundle: Promise<string> | undefined;
  const log = deps.logger.child({ component: 'gateway-demo' });

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (req.method === 'GET' && (path === '/demo' || path === '/demo/')) {
      send(res, 200, 'text/html; charset=utf-8', DEMO_PAGE_HTML);
      return true;
    }
    if (req.method === 'GET' && path === '/demo/lattice-realtime.js') {
      bundle ??= deps.bundle();
      try {
        send(res, 200, 'text/javascript; charset=utf-8', await bundle);
      } catch (err) {
        bundle = undefined;
        log.error({ err }, 'the browser client could not be bundled');
        refuse(res, 503, 'bundle_unavailable', 'the browser client could not be bundled');
      }
      return true;
    }
    if (req.method !== 'POST' || (path !== '/demo/token' && path !== '/demo/messages')) return false;
    // Only the demo page itself: a JSON body (which another site cannot send without a CORS
    // preflight, answered by nobody here) from this origin when the browser names one.
    const origin = req.headers.origin;
    if (
      !(req.headers['content-type'] ?? '').startsWith('application/json') ||
      (origin !== undefined && origin !== `http://${req.headers.host}`)
    ) {
      refuse(res, 403, 'demo_only', 'the demo answers its own page only');
      return true;
    }
    const body = await readJson(req);
    const name = body?.name;
    if (typeof name !== 'string' || !NAME.test(name)) {
      refuse(res, 400, 'validation_failed', 'name: 1 to 32 of A-Z a-z 0-9 . _ -');
      return true;
    }
    try {
      if (path === '/demo/token') {
        const issued = await deps.realtime.tokens.issue({
          productId: settings.productId,
          environment: deps.environment,
          body: {
            subject: name,
            channels: [{ name: DEMO_CHANNEL, ops: ['subscribe', 'publish', 'presence', 'history'] }],
            ttlSeconds: 600,
          },
        });
        json(res, 200, issued);
        return true;
      }
      const text = body?.text;
      if (typeof text !== 'string' || text.length === 0 || text.length > 500) {
        refuse(res, 400, 'validation_failed', 'text: 1 to 500 characters');
        return true;
      }
      const answer = await deps.realtime.messages.publish({
        productId: settings.productId,
        environment: deps.environment,
        body: { channel: DEMO_CHANNEL, name: 'chat', data: { from: name, text } },
        publisher: 'demo',
      });
      json(res, 202, answer.body);
    } catch (err) {
      log.warn({ err }, 'a demo call failed');
      refuse(res, 503, 'demo_failed', 'the demo could not do that right now');
    }
    return true;
  };
}
