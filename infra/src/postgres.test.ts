import { expect } from 'chai';
import { databaseNameOf, databaseUrlFor, maintenanceUrl } from './postgres.ts';
import { redisServerArgs } from './redis.ts';

describe('database URLs', () => {
  const url = 'postgres://postgres:pw@127.0.0.1:5432/lattice?sslmode=disable';

  it('points the same server at another database', () => {
    expect(databaseUrlFor(url, 'lattice_test')).to.equal(
      'postgres://postgres:pw@127.0.0.1:5432/lattice_test?sslmode=disable',
    );
    expect(maintenanceUrl(url)).to.equal('postgres://postgres:pw@127.0.0.1:5432/postgres?sslmode=disable');
  });

  it('reads the database name and refuses a URL without one', () => {
    expect(databaseNameOf(url)).to.equal('lattice');
    expect(databaseNameOf(databaseUrlFor(url, 'odd name'))).to.equal('odd name');
    expect(() => databaseNameOf('postgres://127.0.0.1:5432')).to.throw(/no database name/);
  });
});

describe('redis-server arguments', () => {
  it('binds the configured address, keeps data in the cache and logs to stdout', () => {
    const args = redisServerArgs({ host: '127.0.0.1', port: 6380, dataDir: '/cache/redis/data' });
    expect(args.join(' ')).to.equal(
      '--bind 127.0.0.1 --port 6380 --dir /cache/redis/data --daemonize no --logfile  --protected-mode no',
    );
    expect(redisServerArgs({ host: 'h', port: 1, dataDir: 'd', password: 's3' }).slice(-2)).to.deep.equal([
      '--requirepass',
      's3',
    ]);
  });
});
