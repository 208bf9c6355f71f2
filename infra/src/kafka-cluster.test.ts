import { expect } from 'chai';
import { CONTROLLER_PORT_OFFSET, clusterBrokers, clusterNodes } from './kafka-cluster.ts';

describe('kafka-cluster nodes', () => {
  it('takes the client addresses from KAFKA_BROKERS when it lists one per broker', () => {
    const nodes = clusterNodes(['127.0.0.1:19092', '127.0.0.1:19093', '127.0.0.1:19094'], 3);
    expect(nodes.map((n) => [n.nodeId, n.address.port, n.controllerPort])).to.deep.equal([
      [1, 19092, 19092 + CONTROLLER_PORT_OFFSET],
      [2, 19093, 19093 + CONTROLLER_PORT_OFFSET],
      [3, 19094, 19094 + CONTROLLER_PORT_OFFSET],
    ]);
    expect(clusterBrokers(nodes)).to.deep.equal(['127.0.0.1:19092', '127.0.0.1:19093', '127.0.0.1:19094']);
  });

  it('counts up from a single address, and takes controller ports when given', () => {
    const nodes = clusterNodes(['127.0.0.1:9092'], 3, [9192, 9292, 9392]);
    expect(clusterBrokers(nodes)).to.deep.equal(['127.0.0.1:9092', '127.0.0.1:9093', '127.0.0.1:9094']);
    expect(nodes.map((n) => n.controllerPort)).to.deep.equal([9192, 9292, 9392]);
  });

  it('refuses lists that do not fit, and ports used twice', () => {
    expect(() => clusterNodes(['a:1', 'b:2'], 3)).to.throw(/lists 2 addresses for 3 brokers/);
    expect(() => clusterNodes(['127.0.0.1:9092'], 0)).to.throw(/1 broker or more/);
    expect(() => clusterNodes(['127.0.0.1:9092'], 2, [9093])).to.throw(/1 controller ports for 2/);
    // The second broker's client port is the first one's controller port.
    expect(() => clusterNodes(['127.0.0.1:9092'], 2, [9093, 9193])).to.throw(/9093 is used twice/);
    expect(() => clusterNodes(['127.0.0.1:65535'], 2)).to.throw(/out of range/);
  });
});
