import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { setsFieldsDirectly, setTrustedField } from './trusted-fields.ts';

describe('setTrustedField', () => {
  it('sets fields directly on this Node (the probe found the fields slot)', () => {
    // Fails on a Node whose internals moved: the edge would still be correct, through setHeader.
    expect(setsFieldsDirectly).to.equal(true);
  });

  it('sends the fields with the answer, alongside setHeader ones, and lets setHeader replace them', async () => {
    const server = createServer((_req, res) => {
      setTrustedField(res, 'ratelimit-policy', '"per-ip";q=100;w=60');
      res.setHeader('Content-Type', 'application/json');
      setTrustedField(res, 'ratelimit', '"per-ip";r=99;t=60');
      setTrustedField(res, 'x-replaced', 'first');
      res.setHeader('X-Replaced', 'second');
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await fetch(`http://127.0.0.1:${port}/`);
      expect(answer.headers.get('ratelimit-policy')).to.equal('"per-ip";q=100;w=60');
      expect(answer.headers.get('ratelimit')).to.equal('"per-ip";r=99;t=60');
      expect(answer.headers.get('content-type')).to.equal('application/json');
      expect(answer.headers.get('x-replaced')).to.equal('second');
      expect(await answer.text()).to.equal('{}');
    } finally {
      server.close();
    }
  });
});
