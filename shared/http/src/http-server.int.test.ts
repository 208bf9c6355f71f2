// Slow requests on the HTTP roles' server (http-server.ts), over raw sockets: headers that do not
// complete and bodies that do not arrive are cut with 408 and the JSON error body; requests that
// complete in time are served, however long their handler then takes.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { createLogger } from '@lattice/core';
import { expect } from 'chai';
import { connectionsCheckingIntervalOf, createHttpServer } from './http-server.ts';

const logger = createLogger({ name: 'http-server-test', level: 'silent' });
const TIMEOUTS = { headersMs: 400, requestMs: 800 };

/** Everything the server writes until it closes the connection. */
async function answerOf(socket: Socket): Promise<string> {
  let text = '';
  socket.on('data', (d: Buffer) => {
    text += d.toString('utf8');
  });
  await once(socket, 'close');
  return text;
}

describe('HTTP server: slow requests', function () {
  this.timeout(20_000);
  let url: { host: string; port: number };
  let close: () => Promise<void>;

  before(async () => {
    const server = createHttpServer(
      (req, res) => {
        // Reads the whole body, then answers after a pause longer than both cuts: answering late
        // is the handler's business, only receiving the request is bounded.
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          setTimeout(() => {
            res.writeHead(200, { 'content-type': 'text/plain' });
            res.end(`got ${Buffer.concat(chunks).length}`);
          }, TIMEOUTS.requestMs + 200);
        });
      },
      TIMEOUTS,
      logger,
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = { host: '127.0.0.1', port: (server.address() as AddressInfo).port };
    close = () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
  });
  after(() => close?.());

  const open = async () => {
    const socket = connect(url.port, url.host);
    await once(socket, 'connect');
    return socket;
  };

  function expect408(answer: string): void {
    expect(answer).to.match(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(answer).to.match(/\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
    expect(answer).to.match(/\r\nconnection: close\r\n/i);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { code: string } };
    expect(body.error.code).to.equal('request_timeout');
  }

  it('cuts a request whose headers never complete: 408, the JSON error body, the connection closed', async () => {
    const socket = await open();
    socket.write('GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    expect408(await answerOf(socket));
  });

  it('cuts a request whose body does not arrive (Content-Length 100, one byte sent)', async () => {
    const socket = await open();
    socket.write(
      'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
    );
    expect408(await answerOf(socket));
  });

  it('serves a request received whole in time, even when its answer takes longer than both cuts', async () => {
    const socket = await open();
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc');
    const answer = await answerOf(socket);
    expect(answer).to.match(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer).to.include('got 3');
  });

  it('looks for slow requests often enough for a cut to land near its limit', () => {
    expect(connectionsCheckingIntervalOf({ headersMs: 10_000, requestMs: 30_000 })).to.equal(500);
    expect(connectionsCheckingIntervalOf({ headersMs: 60_000, requestMs: 60_000 })).to.equal(1000);
    expect(connectionsCheckingIntervalOf(TIMEOUTS)).to.equal(20);
  });
});
