import { expect } from 'chai';
import { allowedMethods, matchPublicRoute, PUBLIC_ROUTES } from './public-routes.ts';

describe('public route catalog', () => {
  it('lists the five keyed realtime routes, the two keyed mail routes and the keyless mail links', () => {
    const keyed = PUBLIC_ROUTES.filter((r) => r.keyed).map((r) => `${r.toolkit} ${r.method} ${r.path}`);
    expect(keyed).to.have.length(7);
    expect(PUBLIC_ROUTES.filter((r) => r.toolkit === 'realtime' && r.keyed)).to.have.length(5);
    expect(PUBLIC_ROUTES.filter((r) => !r.keyed).every((r) => r.toolkit === 'mail')).to.equal(true);
  });

  it('matches templates segment by segment and extracts parameters', () => {
    expect(matchPublicRoute('mail', 'GET', '/emails/abc')?.params).to.deep.equal({ id: 'abc' });
    expect(matchPublicRoute('realtime', 'GET', '/channels/chat:room/presence/stats')?.route.path).to.equal(
      '/channels/{channel}/presence/stats',
    );
    expect(matchPublicRoute('mail', 'GET', '/emails/')).to.equal(undefined);
    expect(matchPublicRoute('mail', 'GET', '/emails/a/b')).to.equal(undefined);
    expect(matchPublicRoute('mail', 'DELETE', '/emails/a')).to.equal(undefined);
    expect(matchPublicRoute('chat', 'POST', '/messages')).to.equal(undefined);
  });

  it('knows which methods a path answers', () => {
    expect(allowedMethods('mail', '/unsubscribe/t')).to.deep.equal(['GET', 'POST']);
    expect(allowedMethods('realtime', '/messages')).to.deep.equal(['POST']);
    expect(allowedMethods('realtime', '/nothing')).to.deep.equal([]);
  });
});
