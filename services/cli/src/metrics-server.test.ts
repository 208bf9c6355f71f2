// The metrics port of a role run alone: /metrics and /healthz over real HTTP, and what /healthz
// says once the process is stopping (the port stays up until the exit, so the stop is scraped).
import { createLogger, loadConfig, type RoleHealth } from '@lattice/core';
import { expect } from 'chai';
import { Counter, Registry } from 'prom-client';
import { healthWhileStopping, startMetricsServer } from './metrics-server.ts';

describe('role metrics server', () => {
  it('answers /healthz 503 "stopping" from the stop on, the role\'s own reason first, and /metrics throughout', async () => {
    const registry = new Registry();
    new Counter({ name: 'lattice_test_things_total', help: 'things', registers: [registry] }).inc(3);
    let role: RoleHealth = { ok: true };
    let stopping = false;
    const server = await startMetricsServer(
      registry,
      '127.0.0.1',
      0,
      () => healthWhileStopping(role, stopping),
      { timeouts: loadConfig({}).httpTimeouts, logger: createLogger({ name: 't', level: 'silent' }) },
    );
    const base = `http://127.0.0.1:${server.port}`;
    const health = async () => {
      const res = await fetch(`${base}/healthz`);
      return { status: res.status, body: (await res.json()) as unknown };
    };
    try {
      expect(await health()).to.deep.equal({ status: 200, body: { status: 'ok' } });
      stopping = true;
      expect(await health()).to.deep.equal({
        status: 503,
        body: { status: 'unhealthy', reason: 'stopping' },
      });
      role = { ok: false, reason: 'draining: closing its connections' };
      expect(await health()).to.deep.equal({
        status: 503,
        body: { status: 'unhealthy', reason: 'draining: closing its connections' },
      });
      const metrics = await fetch(`${base}/metrics`);
      expect(metrics.status).to.equal(200);
      expect(await metrics.text()).to.match(/^lattice_test_things_total 3$/m);
    } finally {
      await server.close();
    }
  });
});
