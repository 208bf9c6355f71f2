import { allowedMethods, matchPublicRoute, PUBLIC_ROUTES, TOOLKITS } from '@lattice/http';
import { expect } from 'chai';
import { createRouteMatcher } from './route-matcher.ts';

const matcher = createRouteMatcher();

const SAMPLE_PATHS = [
  '/emails',
  '/emails/',
  '/emails/123',
  '/emails/123/',
  '/emails//',
  '/t/open/tok',
  '/t/click/tok',
  '/t/open/',
  '/unsubscribe/tok',
  '/tokens/issue',
  '/tokens',
  '/messages',
  '/channels/news:a/history',
  '/channels//history',
  '/channels/c/presence',
  '/channels/c/presence/stats',
  '/channels/c/presence/other',
  '/',
  '',
  '/nothing/here',
  'emails',
  '/channels/c/presence/stats/a/b/c/d/e',
  '/t//click',
];

describe('createRouteMatcher', () => {
  it('agrees with matchPublicRoute and allowedMethods on every toolkit, method and sample path', () => {
    for (const toolkit of [...TOOLKITS, 'other']) {
      for (const subPath of SAMPLE_PATHS) {
        const allowed = allowedMethods(toolkit, subPath);
        for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
          const expected = matchPublicRoute(toolkit, method, subPath);
          const got = matcher.resolve(toolkit, method, subPath);
          const where = `${method} ${toolkit}${subPath}`;
          if (expected) {
            expect(got, where).to.deep.equal({
              kind: 'match',
              route: expected.route,
              params: expected.params,
            });
            // The very route object, so registries keyed by PUBLIC_ROUTES entries find it.
            expect(got.kind === 'match' && got.route, where).to.equal(expected.route);
          } else if (allowed.length > 0) {
            expect(got.kind, where).to.equal('method');
          } else {
            expect(got, where).to.deep.equal({ kind: 'none' });
          }
        }
      }
    }
  });

  it('matches every public route by its own template', () => {
    for (const route of PUBLIC_ROUTES) {
      const path = route.path.replace(/\{[a-z]+\}/g, 'x');
      const got = matcher.resolve(route.toolkit, route.method, path);
      expect(got.kind === 'match' && got.route).to.equal(route);
    }
  });

  it('serves HEAD as GET and lists HEAD with GET in Allow', () => {
    const head = matcher.resolve('mail', 'HEAD', '/emails/1');
    expect(head.kind === 'match' && `${head.route.method} ${head.route.path}`).to.equal('GET /emails/{id}');
    expect(matcher.resolve('mail', 'POST', '/emails/1')).to.deep.equal({
      kind: 'method',
      allow: 'GET, HEAD',
    });
    expect(matcher.resolve('mail', 'GET', '/emails')).to.deep.equal({ kind: 'method', allow: 'POST' });
    expect(matcher.resolve('mail', 'DELETE', '/unsubscribe/t')).to.deep.equal({
      kind: 'method',
      allow: 'GET, HEAD, POST',
    });
  });

  it('percent-decodes parameters and reports malformed encoding', () => {
    const got = matcher.resolve('realtime', 'GET', '/channels/news%3Asports/history');
    expect(got.kind === 'match' && got.params).to.deep.equal({ channel: 'news:sports' });
    expect(matcher.resolve('realtime', 'GET', '/channels/%E0%A4%A/history')).to.deep.equal({
      kind: 'malformed',
    });
    // Literal segments are compared as sent: an encoded literal is another path.
    expect(matcher.resolve('mail', 'POST', '/%65mails')).to.deep.equal({ kind: 'none' });
  });
});
