import { expect } from 'chai';
import {
  createTargetGuard,
  type HostLookup,
  type ResolvedAddress,
  TargetRefusedError,
} from './target-guard.ts';

const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });

/** A resolver that answers from a table; an unknown name does not resolve. */
function tableLookup(table: Record<string, string[]>): HostLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (host: string): Promise<ResolvedAddress[]> => {
    calls.push(host);
    const addresses = table[host];
    if (!addresses) throw notFound;
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

async function refusedReason(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(TargetRefusedError);
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('webhook target guard', () => {
  const lookup = tableLookup({
    'hooks.example.com': ['93.184.216.34', '2606:2800:220:1::'],
    'mixed.example.com': ['93.184.216.34', '10.0.0.5'],
    'internal.example.com': ['10.0.0.5'],
    'metadata.example.com': ['169.254.169.254'],
    'mapped.example.com': ['::ffff:127.0.0.1'],
    'empty.example.com': [],
  });
  const strict = createTargetGuard({ allowPrivateTargets: false, lookup });
  const lenient = createTargetGuard({ allowPrivateTargets: true, lookup });

  it('accepts an https URL whose every address is public', async () => {
    expect(await strict.checkUrl('https://hooks.example.com/webhooks')).to.deep.equal({ ok: true });
    expect(await strict.checkUrl('https://93.184.216.34:8443/')).to.deep.equal({ ok: true });
    expect(await strict.checkUrl('https://[2606:2800:220:1::]/')).to.deep.equal({ ok: true });
  });

  it('refuses other schemes, credentials in the URL and what is not a URL', async () => {
    expect(await strict.checkUrl('http://hooks.example.com/')).to.deep.equal({
      ok: false,
      reason: 'must be an https:// URL, not http://',
    });
    expect(await strict.checkUrl('https://user:pass@hooks.example.com/')).to.deep.equal({
      ok: false,
      reason: 'must not carry a user name or password',
    });
    expect(await strict.checkUrl('https://user@hooks.example.com/')).to.have.property('ok', false);
    expect(await strict.checkUrl('not a url')).to.deep.equal({ ok: false, reason: 'is not a valid URL' });
  });

  it('refuses when any resolved address is refused, naming it', async () => {
    expect(await strict.checkUrl('https://mixed.example.com/')).to.deep.equal({
      ok: false,
      reason: 'resolves to a private address (RFC 1918)',
    });
    expect(await strict.checkUrl('https://mapped.example.com/')).to.deep.equal({
      ok: false,
      reason: 'resolves to a private address (loopback, IPv4-mapped)',
    });
    expect(await lenient.checkUrl('https://mixed.example.com/')).to.deep.equal({ ok: true });
    expect(await lenient.checkUrl('https://metadata.example.com/')).to.deep.equal({
      ok: false,
      reason: 'resolves to a forbidden address (cloud metadata)',
    });
  });

  it('judges IP literals in every URL form without a lookup', async () => {
    const before = lookup.calls.length;
    expect(await strict.checkUrl('https://2130706433/')).to.deep.equal({
      ok: false,
      reason: 'is 127.0.0.1, a private address (loopback)',
    });
    expect(await strict.checkUrl('https://0x7f.1/')).to.have.property('ok', false);
    expect(await strict.checkUrl('https://[::1]:8443/')).to.have.property('ok', false);
    expect(await strict.checkUrl('https://[::ffff:127.0.0.1]/')).to.deep.equal({
      ok: false,
      reason: 'is ::ffff:7f00:1, a private address (loopback, IPv4-mapped)',
    });
    expect(await lenient.checkUrl('https://2130706433/')).to.deep.equal({ ok: true });
    expect(await lenient.checkUrl('https://[fd00:ec2::254]/')).to.deep.equal({
      ok: false,
      reason: 'is fd00:ec2::254, a forbidden address (cloud metadata)',
    });
    expect(await lenient.checkUrl('https://169.254.169.254/latest/meta-data/')).to.have.property('ok', false);
    expect(lookup.calls.length).to.equal(before);
  });

  it('accepts a name that does not resolve yet', async () => {
    expect(await strict.checkUrl('https://not-yet.example.com/')).to.deep.equal({ ok: true });
    expect(await strict.checkUrl('https://empty.example.com/')).to.deep.equal({ ok: true });
  });

  it('gives an attempt the first address, after checking them all', async () => {
    expect(await strict.resolveForAttempt(new URL('https://hooks.example.com/x'))).to.deep.equal({
      address: '93.184.216.34',
      family: 4,
    });
    expect(await lenient.resolveForAttempt(new URL('https://[::1]:8443/'))).to.deep.equal({
      address: '::1',
      family: 6,
    });
    expect(await lenient.resolveForAttempt(new URL('https://2130706433/'))).to.deep.equal({
      address: '127.0.0.1',
      family: 4,
    });
    expect(await refusedReason(strict.resolveForAttempt(new URL('https://mixed.example.com/')))).to.equal(
      'mixed.example.com resolves to a private address (RFC 1918)',
    );
    expect(await refusedReason(strict.resolveForAttempt(new URL('https://127.0.0.1/')))).to.equal(
      '127.0.0.1 is a private address (loopback)',
    );
    expect(await refusedReason(lenient.resolveForAttempt(new URL('http://hooks.example.com/')))).to.equal(
      'the URL must be an https:// URL, not http://',
    );
  });

  it('fails an attempt whose host does not resolve, saying so', async () => {
    for (const host of ['not-yet.example.com', 'empty.example.com']) {
      try {
        await strict.resolveForAttempt(new URL(`https://${host}/`));
        expect.fail('resolved');
      } catch (err) {
        expect(err).not.to.be.instanceOf(TargetRefusedError);
        expect((err as Error).message).to.match(new RegExp(`^${host} did not resolve`));
      }
    }
  });

  it('refuses at the attempt an address that changed after the check (DNS rebinding)', async () => {
    const answers = [['93.184.216.34'], ['127.0.0.1']];
    const rebinding = createTargetGuard({
      allowPrivateTargets: false,
      lookup: async () => (answers.shift() ?? []).map((address) => ({ address, family: 4 as const })),
    });
    expect(await rebinding.checkUrl('https://rebind.example.com/')).to.deep.equal({ ok: true });
    expect(await refusedReason(rebinding.resolveForAttempt(new URL('https://rebind.example.com/')))).to.equal(
      'rebind.example.com resolves to a private address (loopback)',
    );
  });
});
