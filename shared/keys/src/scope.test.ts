import { PUBLIC_ROUTES } from '@lattice/http';
import { expect } from 'chai';
import { parseScope, scopeCovers, toolkitsReached } from './scope.ts';

const route = (toolkit: string, method: string, path: string) =>
  PUBLIC_ROUTES.find((r) => r.toolkit === toolkit && r.method === method && r.path === path)!;

describe('public key scopes', () => {
  it('a product scope covers every route of every toolkit', () => {
    for (const r of PUBLIC_ROUTES) expect(scopeCovers({ kind: 'product' }, r)).to.equal(true);
    expect(toolkitsReached({ kind: 'product' })).to.deep.equal(['mail', 'realtime']);
  });

  it('a toolkit scope covers exactly that toolkit', () => {
    const mail = { kind: 'toolkit', toolkit: 'mail' } as const;
    expect(scopeCovers(mail, route('mail', 'POST', '/emails'))).to.equal(true);
    expect(scopeCovers(mail, route('mail', 'GET', '/emails/{id}'))).to.equal(true);
    expect(scopeCovers(mail, route('realtime', 'POST', '/messages'))).to.equal(false);
    expect(toolkitsReached(mail)).to.deep.equal(['mail']);
  });

  it('a route scope covers one toolkit, one method, one path', () => {
    const s = { kind: 'route', toolkit: 'realtime', method: 'POST', path: '/messages' } as const;
    expect(scopeCovers(s, route('realtime', 'POST', '/messages'))).to.equal(true);
    expect(scopeCovers(s, route('realtime', 'POST', '/tokens/issue'))).to.equal(false);
    expect(scopeCovers(s, { toolkit: 'mail', method: 'POST', path: '/messages' })).to.equal(false);
  });

  it('parses valid scopes and names the failing field otherwise', () => {
    expect(parseScope({ kind: 'product' })).to.deep.equal({ scope: { kind: 'product' } });
    expect(parseScope({ kind: 'toolkit', toolkit: 'realtime' })).to.deep.equal({
      scope: { kind: 'toolkit', toolkit: 'realtime' },
    });
    expect(parseScope({ kind: 'route', toolkit: 'mail', method: 'GET', path: '/emails/{id}' })).to.deep.equal(
      {
        scope: { kind: 'route', toolkit: 'mail', method: 'GET', path: '/emails/{id}' },
      },
    );
    expect(parseScope({ kind: 'toolkit', toolkit: 'chat' })).to.have.nested.property(
      'fields[0].path',
      '/scope/toolkit',
    );
    expect(parseScope({ kind: 'everything' })).to.have.nested.property('fields[0].path', '/scope/kind');
    // A keyless route cannot be a key's scope, nor a route of another toolkit.
    expect(
      parseScope({ kind: 'route', toolkit: 'mail', method: 'GET', path: '/t/open/{token}' }),
    ).to.have.property('fields');
    expect(
      parseScope({ kind: 'route', toolkit: 'mail', method: 'POST', path: '/messages' }),
    ).to.have.property('fields');
  });

  it("refuses fields that do not belong to the kind, in the caller's path style", () => {
    expect(parseScope({ kind: 'product', toolkit: 'mail' }, 'body.scope')).to.deep.equal({
      fields: [{ path: 'body.scope.toolkit', message: 'is not allowed for kind product' }],
    });
    expect(parseScope({ kind: 'toolkit', toolkit: 'mail', path: '/emails' }, 'body.scope')).to.deep.equal({
      fields: [{ path: 'body.scope.path', message: 'is not allowed for kind toolkit' }],
    });
    expect(parseScope({ kind: 'nope' }, 'body.scope')).to.have.nested.property(
      'fields[0].path',
      'body.scope.kind',
    );
    expect(parseScope(['product'], 'body.scope')).to.have.nested.property('fields[0].path', 'body.scope');
  });
});
