// Listening for the management role. The settings' host and port decide the address (port 0
// picks a free one, for tests); slow requests are cut as on every HTTP role (http-server.ts).
import type { AddressInfo } from 'node:net';
import type { HttpTimeouts } from '@lattice/core';
import type { OpenApiDocument, RouteDef } from '@lattice/http';
import { createHttpServer } from '@lattice/http';
import { buildManagementApp, type ManagementDeps } from './app.ts';

export interface ManagementListen {
  host: string;
  /** config.managementPort. */
  port: number;
  /** config.httpTimeouts. */
  timeouts: HttpTimeouts;
}

export interface RunningManagement {
  url: string;
  port: number;
  openApi: OpenApiDocument;
  /** Every route served, operational ones included. */
  routes: RouteDef[];
  close(): Promise<void>;
}

export function startManagement(listen: ManagementListen, deps: ManagementDeps): Promise<RunningManagement> {
  const { app, openApi, routes } = buildManagementApp(deps);
  return new Promise((resolve, reject) => {
    const server = createHttpServer(app, listen.timeouts, deps.logger);
    server.once('error', reject);
    server.listen(listen.port, listen.host);
    server.once('listening', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://${listen.host}:${port}`,
        port,
        openApi,
        routes,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((err) => (err ? fail(err) : done()));
            server.closeIdleConnections();
          }),
      });
    });
  });
}
