import { expect } from 'chai';
import {
  clusterReplication,
  formatProperties,
  kafkaLog4jProperties,
  kafkaServerProperties,
  randomClusterId,
} from './kafka-properties.ts';

function parse(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.indexOf('=');
    map.set(line.slice(0, i), line.slice(i + 1));
  }
  return map;
}

describe('kafka-properties', () => {
  const props = parse(
    kafkaServerProperties({
      host: '127.0.0.1',
      port: 9092,
      controllerPort: 9093,
      dataDir: '/data/kafka',
      partitions: 12,
    }),
  );

  it('configures one combined KRaft broker and controller', () => {
    expect(props.get('process.roles')).to.equal('broker,controller');
    expect(props.get('node.id')).to.equal('1');
    expect(props.get('controller.quorum.voters')).to.equal('1@127.0.0.1:9093');
    expect(props.get('listeners')).to.equal('PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093');
    expect(props.get('advertised.listeners')).to.equal('PLAINTEXT://127.0.0.1:9092');
    expect(props.get('controller.listener.names')).to.equal('CONTROLLER');
    expect(props.get('log.dirs')).to.equal('/data/kafka');
  });

  it('suits a single local node: no auto-created topics, replication 1, no rebalance delay', () => {
    expect(props.get('auto.create.topics.enable')).to.equal('false');
    expect(props.get('num.partitions')).to.equal('12');
    expect(props.get('offsets.topic.replication.factor')).to.equal('1');
    expect(props.get('transaction.state.log.replication.factor')).to.equal('1');
    expect(props.get('transaction.state.log.min.isr')).to.equal('1');
    expect(props.get('group.initial.rebalance.delay.ms')).to.equal('0');
  });

  it('makes node 2 of a three-node cluster a voter among three, with 3 copies and 2 in sync', () => {
    const node = parse(
      kafkaServerProperties({
        host: '127.0.0.1',
        port: 19093,
        controllerPort: 19193,
        dataDir: '/data/node-2',
        partitions: 12,
        nodeId: 2,
        voters: [1, 2, 3].map((nodeId) => ({ nodeId, host: '127.0.0.1', controllerPort: 19191 + nodeId })),
      }),
    );
    expect(node.get('node.id')).to.equal('2');
    expect(node.get('controller.quorum.voters')).to.equal(
      '1@127.0.0.1:19192,2@127.0.0.1:19193,3@127.0.0.1:19194',
    );
    expect(node.get('listeners')).to.equal('PLAINTEXT://127.0.0.1:19093,CONTROLLER://127.0.0.1:19193');
    expect(node.get('advertised.listeners')).to.equal('PLAINTEXT://127.0.0.1:19093');
    expect(node.get('default.replication.factor')).to.equal('3');
    expect(node.get('min.insync.replicas')).to.equal('2');
    expect(node.get('offsets.topic.replication.factor')).to.equal('3');
    expect(node.get('transaction.state.log.replication.factor')).to.equal('3');
    expect(node.get('transaction.state.log.min.isr')).to.equal('2');
  });

  it('replicates min(3, brokers) times and asks 2 in sync only at 3 copies', () => {
    expect([1, 2, 3, 5].map(clusterReplication)).to.deep.equal([
      { factor: 1, minInsync: 1 },
      { factor: 2, minInsync: 1 },
      { factor: 3, minInsync: 2 },
      { factor: 3, minInsync: 2 },
    ]);
  });

  it('escapes what Java properties would misread', () => {
    expect(formatProperties([['a key', 'C:\\data']])).to.equal('a\\ key=C:\\\\data\n');
    expect(formatProperties([['k', 1]], 'two\nlines')).to.equal('# two\n# lines\nk=1\n');
  });

  it('logs the broker to the given file', () => {
    const log4j = parse(kafkaLog4jProperties('/logs/server.log'));
    expect(log4j.get('log4j.rootLogger')).to.equal('INFO, file');
    expect(log4j.get('log4j.appender.file.File')).to.equal('/logs/server.log');
  });

  it('makes cluster ids like kafka-storage random-uuid, never starting with "-"', () => {
    const id = randomClusterId();
    expect(id).to.match(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    // 0xf8 encodes to a leading "-" in base64url; the first draw must be rejected.
    const draws = [Buffer.alloc(16, 0xf8), Buffer.alloc(16, 0x01)];
    expect(randomClusterId(() => draws.shift() as Buffer)).to.equal(
      Buffer.alloc(16, 0x01).toString('base64url'),
    );
  });
});
