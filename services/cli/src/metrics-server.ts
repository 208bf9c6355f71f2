// `/metrics` and `/healthz` for a role run alone without the management API, which serves them
// otherwise: the actors role, and an edge (whose own port is public, so not there).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpTimeouts, Logger, RoleHealth } from '@lattice/core';
import { createHttpServer } from '@lattice/http';
import type { Registry } from 'prom-client';

export async function startMetricsServer(
  registry: Registry,
  host: string,
  port: number,
  /** `/healthz` answers 503 with the reason while the role is not ok. */
  health: () => RoleHealth,
  /** config.httpTimeouts (slow requests are cut as on every HTTP port), and where refusals are logged. */
  http: { timeouts: HttpTimeouts; logger: Logger },
): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createHttpServer(
    (req, res) => {
      if (req.method === 'GET' && req.url === '/metrics') {
        registry.metrics().then(
          (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
          () => res.writeHead(500).end(),
        );
      } else if (req.method === 'GET' && req.url === '/healthz') {
        const { ok, reason } = health();
        res
          .writeHead(ok ? 200 : 503, { 'content-type': 'application/json' })
          .end(ok ? '{"status":"ok"}' : JSON.stringify({ status: 'unhealthy', reason }));
      } else {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"error":{"code":"not_found","message":"No such route."}}');
      }
    },
    http.timeouts,
    http.logger,
  );
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * A role's health once its process is stopping: 503 "stopping", so a load balancer stops sending
 * while the role finishes, unless the role says why itself (a gateway's "draining").
 */
export function healthWhileStopping(health: RoleHealth, stopping: boolean): RoleHealth {
  return health.ok && stopping ? { ok: false, reason: 'stopping' } : health;
}
