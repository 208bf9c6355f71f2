// An app under test listening on an ephemeral port of the loopback interface.
import type { Server } from 'node:http';
import type { Express } from 'express';

export interface Listening {
  baseUrl: string;
  port: number;
  close(): Promise<void>;
}

export function listen(app: Express): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const server: Server = app.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') return reject(new Error('no port'));
      resolve({
        baseUrl: `http://127.0.0.1:${address.port}`,
        port: address.port,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
    server.once('error', reject);
  });
}
