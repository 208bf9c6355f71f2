// `/reference`: HTML generated from the served OpenAPI document, stamped with the same
// catalog_version, listing every catalog operation, and reachable without a credential.
import { catalogRoutes } from '@lattice/http';
import { expect } from 'chai';
import { startTestManagement, type TestManagement } from '../testing/test-management.ts';

describe('management API: the /reference pages', function () {
  this.timeout(30_000);
  let t: TestManagement;
  before(async () => {
    t = await startTestManagement();
  });
  after(() => t?.close());

  it('are HTML of the same generation as /openapi.json, with every operation, and need no credential', async () => {
    const res = await fetch(`${t.server.url}/reference`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    const html = await res.text();
    const doc = (await t.call<{ 'x-lattice': { catalog_version: string } }>('GET', '/openapi.json')).json;
    const version = doc['x-lattice'].catalog_version;
    expect(html).to.include(`<meta name="catalog-version" content="${version}">`);
    expect(html).to.include(`Catalog version <code>${version}</code>`);
    expect(res.headers.get('x-catalog-version')).to.equal(version);
    for (const route of catalogRoutes(t.routes)) {
      expect(html, route.operationId).to.include(`<section id="${route.operationId}"`);
    }
    // Examples and error answers are shown as the document gives them.
    const revoke = html.slice(html.indexOf('<section id="organization_public-keys_revoke"'));
    const section = revoke.slice(0, revoke.indexOf('</section>'));
    expect(section).to.include('<code>public_key_revoked</code>');
    expect(section).to.include('&quot;code&quot;: &quot;public_key_revoked&quot;');
    expect(html).to.include('<h4>Request example</h4>');
    // Descriptions are escaped: no markup of theirs reaches the page.
    expect(html).to.not.match(/<script/i);
  });
});
