// The dashboard's scope choices against the API's own scope rules: every route the page offers
// is one the API accepts in a route scope, every keyed public route is offered, and each reads
// in plain words. Adding a keyed route to shared/http's table adds it to the page by itself;
// only its description has to be written (the last test says which).
import { PUBLIC_ROUTES } from '@lattice/http';
import { parseScope } from '@lattice/keys';
import { expect } from 'chai';
import {
  defaultScope,
  describeReach,
  ROUTE_OPTIONS,
  ROUTE_PURPOSES,
  scopeOfChoice,
} from '../../dashboard/scope-options.ts';
import { buildDashboardScript } from './dashboard-files.ts';

describe('dashboard scope choices', () => {
  const keyed = PUBLIC_ROUTES.filter((r) => r.keyed);

  it('offer exactly the keyed public routes, each accepted by the API as a route scope', () => {
    expect(ROUTE_OPTIONS.map((o) => [o.toolkit, o.method, o.path])).to.deep.equal(
      keyed.map((r) => [r.toolkit, r.method, r.path]),
    );
    for (const option of ROUTE_OPTIONS) {
      const scope = scopeOfChoice('route', '', option.value);
      expect(parseScope(scope), option.value).to.deep.equal({ scope });
    }
    expect(new Set(ROUTE_OPTIONS.map((o) => o.value)).size).to.equal(ROUTE_OPTIONS.length);
  });

  it('start at the narrowest kind: exactly one route, already chosen', () => {
    const scope = defaultScope();
    expect(scope.kind).to.equal('route');
    expect(parseScope(scope)).to.deep.equal({ scope });
  });

  it('build the toolkit and product kinds, and refuse what the page does not offer', () => {
    expect(scopeOfChoice('toolkit', 'realtime', '')).to.deep.equal({ kind: 'toolkit', toolkit: 'realtime' });
    expect(scopeOfChoice('product', '', '')).to.deep.equal({ kind: 'product' });
    expect(scopeOfChoice('toolkit', 'sms', '')).to.equal(undefined);
    expect(scopeOfChoice('route', '', 'mail GET /t/open/{token}')).to.equal(undefined);
  });

  it('say what a key reaches', () => {
    expect(describeReach({ kind: 'product' }, ['mail', 'realtime'])).to.deep.equal({
      toolkits: 'mail + realtime',
      detail: 'every route, including later ones',
    });
    expect(describeReach({ kind: 'toolkit', toolkit: 'mail' }, ['mail'])).to.deep.equal({
      toolkits: 'mail',
      detail: 'every mail route',
    });
    expect(
      describeReach({ kind: 'route', toolkit: 'realtime', method: 'POST', path: '/messages' }, ['realtime']),
    ).to.deep.equal({ toolkits: 'realtime', detail: 'POST /messages' });
  });

  it('describe every keyed route in plain words, and nothing else', () => {
    expect(Object.keys(ROUTE_PURPOSES).sort()).to.deep.equal(keyed.map((r) => r.operationId).sort());
  });

  it('bundle into one browser module with the route table inside', async () => {
    const script = await buildDashboardScript();
    for (const route of keyed) expect(script).to.include(JSON.stringify(route.path).slice(1, -1));
    expect(script).to.not.match(/\bfrom\s*["']/);
    expect(script).to.not.include('require(');
  });
});
