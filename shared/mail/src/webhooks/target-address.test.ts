import { expect } from 'chai';
import { classifyTargetAddress, type TargetAddressClass, targetAddressVerdict } from './target-address.ts';

function expectAll(cls: TargetAddressClass, addresses: string[]) {
  for (const ip of addresses) expect([ip, classifyTargetAddress(ip)]).to.deep.equal([ip, cls]);
}

describe('webhook target addresses', () => {
  it('finds public addresses public', () => {
    expectAll('public', [
      '93.184.216.34',
      '8.8.8.8',
      '1.1.1.1',
      '2606:2800:220:1::',
      '2a00:1450:4001:80b::200e',
    ]);
  });

  it('refuses private IPv4 ranges unless allowed, on both sides of each boundary', () => {
    expectAll('private', ['127.0.0.1', '127.0.0.0', '127.255.255.255']);
    expectAll('public', ['126.255.255.255', '128.0.0.0']);
    expectAll('private', ['10.0.0.0', '10.0.0.5', '10.255.255.255']);
    expectAll('public', ['9.255.255.255', '11.0.0.0']);
    expectAll('private', ['172.16.0.0', '172.31.255.255']);
    expectAll('public', ['172.15.255.255', '172.32.0.0']);
    expectAll('private', ['192.168.0.0', '192.168.255.255']);
    expectAll('public', ['192.167.255.255', '192.169.0.0']);
    expectAll('private', ['100.64.0.0', '100.127.255.255']);
    expectAll('public', ['100.63.255.255', '100.128.0.0']);
  });

  it('forbids unspecified, link-local, multicast, reserved and metadata IPv4 addresses', () => {
    expectAll('forbidden', ['0.0.0.0', '0.255.255.255', '169.254.0.0', '169.254.255.255']);
    expectAll('public', ['1.0.0.0', '169.253.255.255', '169.255.0.0']);
    expectAll('forbidden', ['224.0.0.0', '239.255.255.255', '240.0.0.0', '255.255.255.255']);
    expectAll('public', ['223.255.255.255']);
    expectAll('forbidden', ['192.0.2.0', '192.0.2.255', '198.51.100.7', '203.0.113.255']);
    expectAll('public', ['192.0.1.255', '192.0.3.0', '198.51.99.255', '198.51.101.0', '203.0.112.255']);
    expectAll('forbidden', ['198.18.0.0', '198.19.255.255', '192.0.0.0', '192.0.0.255', '192.88.99.1']);
    expectAll('public', ['198.17.255.255', '198.20.0.0', '192.0.1.0']);
    expectAll('forbidden', ['169.254.169.254', '100.100.100.200', '168.63.129.16']);
    expectAll('private', ['100.100.100.199', '100.100.100.201']);
    expect(targetAddressVerdict('169.254.169.254').range).to.equal('cloud metadata');
    expect(targetAddressVerdict('100.100.100.200').range).to.equal('cloud metadata');
    expect(targetAddressVerdict('169.254.1.1').range).to.equal('link-local');
  });

  it('reads the shorthand IPv4 forms a URL host may take', () => {
    expectAll('private', ['2130706433', '0x7f000001', '0x7f.1', '127.1', '017700000001', '10.1']);
    expectAll('forbidden', ['0', '0xa9fea9fe']);
  });

  it('classifies IPv6 ranges', () => {
    expectAll('forbidden', ['::', '0:0:0:0:0:0:0:0']);
    expectAll('private', ['::1', '0:0:0:0:0:0:0:1', '[::1]']);
    expectAll('forbidden', ['::2', '::127.0.0.1', '::8.8.8.8', '::1:0:0', '::ffff:0:0:0']);
    expectAll('forbidden', ['fe80::', 'fe80::1%eth0', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff']);
    expectAll('forbidden', ['ff00::', 'ff02::1', 'FF05::1:3']);
    expectAll('forbidden', ['2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', '3fff::1']);
    expectAll('public', ['2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', '2001:db9::']);
    expectAll('forbidden', ['2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '100::1']);
    expectAll('forbidden', ['fec0::1', '4000::1', 'e000::1', '1::1']);
    expectAll('private', ['fc00::', 'fd12:3456:789a::1', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff']);
    expectAll('public', ['2000::', '3ffe:ffff::1']);
    expectAll('forbidden', ['fd00:ec2::254', 'FD00:0EC2:0000:0000:0000:0000:0000:0254']);
    expectAll('private', ['fd00:ec2::253', 'fd00:ec2::255']);
    expect(targetAddressVerdict('fd00:ec2::254').range).to.equal('cloud metadata');
  });

  it('judges IPv4-mapped, NAT64 and 6to4 addresses by the IPv4 address inside', () => {
    expectAll('private', ['::ffff:127.0.0.1', '::ffff:7f00:1', '::FFFF:7F00:0001', '0:0:0:0:0:ffff:7f00:1']);
    expectAll('private', ['::ffff:10.0.0.5', '::ffff:a00:5', '::ffff:192.168.1.1', '::ffff:100.64.0.1']);
    expectAll('forbidden', [
      '::ffff:169.254.169.254',
      '::ffff:a9fe:a9fe',
      '::ffff:0.0.0.0',
      '::ffff:224.0.0.1',
    ]);
    expectAll('public', ['::ffff:93.184.216.34', '::ffff:5db8:d822']);
    expectAll('private', ['64:ff9b::127.0.0.1', '64:ff9b::a00:1', '64:ff9b::7f00:1']);
    expectAll('forbidden', ['64:ff9b::169.254.169.254', '64:ff9b:1::a00:1']);
    expectAll('public', ['64:ff9b::93.184.216.34']);
    expectAll('private', ['2002:7f00:1::', '2002:a00:5::1', '2002:c0a8:101::']);
    expectAll('forbidden', ['2002:a9fe:a9fe::', '2002:c000:204::']);
    expectAll('public', ['2002:5db8:d822::1']);
    expect(targetAddressVerdict('::ffff:127.0.0.1').range).to.equal('loopback, IPv4-mapped');
    expect(targetAddressVerdict('2002:a9fe:a9fe::').range).to.equal('cloud metadata, 6to4');
  });

  it('throws on what is not an address', () => {
    for (const bad of ['', 'localhost', 'example.com', '1.2.3.4.5', '256.1.1.1', '::g', '1.2.3.4/8', 'a.b']) {
      expect(() => classifyTargetAddress(bad), bad).to.throw(TypeError, 'not an IP address');
    }
  });
});
