// Listening for the management role. The config's host and port decide the address (port 0
// picks a free one, for tests).
import type { AddressInfo } from 'node:net';
import { attachClientErrorHandler } from '@lattice/http';
import { createManagementApp, type ManagementDeps } from './app.ts';

export interface RunningManagement {
  url: string;
  port: number;
  close(): Promise<void>;
}

export function startManagement(deps: ManagementDeps): Promise<RunningManagement> {
  const app = createManagementApp(deps);
  return new Promise((resolve, reject) => {
    const server = app.listen(deps.config.managementPort, deps.config.host);
    attachClientErrorHandler(server, deps.logger);
    server.once('error', reject);
    server.once('listening', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://${deps.config.host}:${port}`,
        port,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((err) => (err ? fail(err) : done()));
            server.closeIdleConnections();
          }),
      });
    });
  });
}
