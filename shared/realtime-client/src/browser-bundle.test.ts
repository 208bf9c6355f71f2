// The browser bundle builds, holds the client and the protocol, and has nothing of Node in it.
import { expect } from 'chai';
import { buildBrowserBundle } from '../build.ts';

describe('browser bundle', function () {
  this.timeout(20_000);
  let text = '';

  before(async () => {
    text = await buildBrowserBundle();
  });

  it('is an ES module exporting connect and RealtimeError', () => {
    expect(text).to.match(/export\s*\{[^}]*\bconnect\b[^}]*\}/);
    expect(text).to.match(/export\s*\{[^}]*\bRealtimeError\b[^}]*\}/);
    // The protocol is inlined, not imported.
    expect(text).to.include('fresh_token_at_once');
    expect(text).to.not.match(/from\s*["']@lattice\//);
  });

  it('has no require call and no node: specifier', () => {
    expect(text).to.not.match(/\brequire\s*\(/);
    expect(text).to.not.include('node:');
  });

  it('runs: connect() with an injected WebSocket sends auth first', async () => {
    const url = `data:text/javascript;base64,${Buffer.from(text).toString('base64')}`;
    const mod = (await import(url)) as typeof import('./index.ts');
    const sent: string[] = [];
    class Socket {
      onopen: ((e: unknown) => void) | null = null;
      onmessage = null;
      onclose: ((e: { code: number; reason: string }) => void) | null = null;
      onerror = null;
      constructor() {
        queueMicrotask(() => this.onopen?.({}));
      }
      send(data: string) {
        sent.push(data);
      }
      close() {
        queueMicrotask(() => this.onclose?.({ code: 1000, reason: '' }));
      }
    }
    const client = mod.connect({ url: 'ws://x/', getToken: async () => 'tok', WebSocket: Socket });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(sent.map((s) => JSON.parse(s))).to.deep.equal([{ id: 1, action: 'auth', token: 'tok' }]);
    await client.close();
    expect(client.state).to.equal('closed');
  });
});
