// The resources roles share: one connection per name, opened on first use, all closed by close().
import { createLogger } from '@lattice/core';
import { testConfig } from '@lattice/core/testing';
import { createDb } from '@lattice/store';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { createRoleShared } from './role-shared.ts';

describe('createRoleShared', () => {
  it('opens one Redis connection and one Kafka client per name, and close() ends every connection', async () => {
    const config = testConfig();
    const logger = createLogger({ name: 't', level: 'silent' });
    const db = createDb({ databaseUrl: config.databaseUrl, logger });
    const shared = createRoleShared({ config, logger, registry: new Registry(), db });
    try {
      const a = shared.redis('a');
      expect(shared.redis('a')).to.equal(a);
      const b = shared.redis('b');
      expect(b).to.not.equal(a);
      expect(shared.kafka('x')).to.equal(shared.kafka('x'));
      expect(await a.ping()).to.equal('PONG');
      await shared.close();
      expect([a.status, b.status]).to.deep.equal(['end', 'end']);
    } finally {
      await db.destroy();
    }
  });

  it('starts the realtime services once, on first use, counted on the registry', async () => {
    const config = testConfig();
    const logger = createLogger({ name: 't', level: 'silent' });
    const db = createDb({ databaseUrl: config.databaseUrl, logger });
    const registry = new Registry();
    const shared = createRoleShared({ config, logger, registry, db });
    try {
      expect(registry.getSingleMetric('lattice_realtime_publish_quota_fallbacks_total')).to.equal(undefined);
      expect(shared.realtime()).to.equal(shared.realtime());
      expect(registry.getSingleMetric('lattice_realtime_publish_quota_fallbacks_total')).to.not.equal(
        undefined,
      );
    } finally {
      await shared.close();
      await db.destroy();
    }
  });
});
