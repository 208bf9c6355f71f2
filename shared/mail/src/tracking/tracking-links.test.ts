import { randomUUID } from 'node:crypto';
import { generateSecretKeyEntry, parseSecretKeys } from '@lattice/core';
import { expect } from 'chai';
import { createTrackingLinks, MAX_TRACKED_LINKS, type TrackedEmail } from './tracking-links.ts';
import { type TrackingKind, verifyTrackingToken } from './tracking-token.ts';
import { confirmationPage, maskAddress, unsubscribedPage } from './unsubscribe-pages.ts';

const keyring = parseSecretKeys(generateSecretKeyEntry('k1'));
const links = createTrackingLinks({
  keyring,
  publicUrls: { production: 'https://edge.example', development: 'http://127.0.0.1:4002/' },
});
const email: TrackedEmail = {
  environment: 'production',
  productId: randomUUID(),
  emailId: randomUUID(),
  recipient: 'ann@example.org',
};

/** The token of a link, checked to sit on `{base}/{product}/mail/{route}/`. */
function tokenOf(url: string, base: string, route: string): string {
  const prefix = `${base}/${email.productId}/mail/${route}/`;
  expect(url.startsWith(prefix), url).to.equal(true);
  return url.slice(prefix.length);
}

function claims(kind: TrackingKind, token: string) {
  return verifyTrackingToken(keyring, token, { kind, productId: email.productId });
}

describe('tracking links', () => {
  it('point at the public edge of the environment that accepted the send', () => {
    const open = tokenOf(links.openPixelUrl(email), 'https://edge.example', 't/open');
    expect(claims('open', open)).to.deep.equal({ kind: 'open', ...without(email) });
    const dev = { ...email, environment: 'development' as const };
    const unsubscribe = tokenOf(links.unsubscribeUrl(dev), 'http://127.0.0.1:4002', 'unsubscribe');
    expect(claims('unsubscribe', unsubscribe)).to.deep.equal({ kind: 'unsubscribe', ...without(email) });
  });

  it('carry the exact original URL in a click, and decline what they cannot track', () => {
    const url = 'https://shop.example/a b?q=ü&x=1#frag';
    const click = tokenOf(links.clickUrl(email, url)!, 'https://edge.example', 't/click');
    expect(claims('click', click)).to.deep.equal({ kind: 'click', ...without(email), url });
    expect(links.clickUrl(email, 'mailto:ann@example.org')).to.equal(null);
    expect(links.clickUrl(email, '/relative')).to.equal(null);
    expect(links.clickUrl(email, `https://x.example/${'a'.repeat(1500)}`)).to.equal(null);
    expect(links.clickUrl(email, `https://x.example/${'a'.repeat(1000)}`)).to.be.a('string');
  });

  it('apply the switches: clicks rewrite links, opens add the pixel, neither changes nothing', () => {
    const html = '<body><a href="https://x.example/">x</a></body>';
    const both = links.trackedHtml(email, html, { opens: true, clicks: true });
    expect(both).to.match(
      /<a href="https:\/\/edge\.example\/[^"]+\/mail\/t\/click\/[^"]+">x<\/a><img src="https:\/\/edge\.example\/[^"]+\/mail\/t\/open\//,
    );
    const clicksOnly = links.trackedHtml(email, html, { opens: false, clicks: true });
    expect(clicksOnly).to.include('/mail/t/click/').and.not.include('<img');
    const opensOnly = links.trackedHtml(email, html, { opens: true, clicks: false });
    expect(opensOnly).to.include('href="https://x.example/"').and.include('/mail/t/open/');
    expect(links.trackedHtml(email, html, { opens: false, clicks: false })).to.equal(html);
  });

  it('track at most MAX_TRACKED_LINKS links of a message; the rest go out as written', () => {
    const html = Array.from(
      { length: MAX_TRACKED_LINKS + 1 },
      (_, i) => `<a href="https://x.example/${i}">${i}</a>`,
    ).join('');
    const out = links.trackedHtml(email, html, { opens: false, clicks: true });
    expect(out.match(/\/mail\/t\/click\//g)).to.have.length(MAX_TRACKED_LINKS);
    expect(out).to.include(`<a href="https://x.example/${MAX_TRACKED_LINKS}">`);
    expect(out).to.not.include('<a href="https://x.example/0">');
  });
});

describe('unsubscribe pages', () => {
  it('mask the address and escape everything they show', () => {
    expect(maskAddress('ann.lee@example.org')).to.equal('a***@example.org');
    expect(maskAddress('x@example.org')).to.equal('x***@example.org');
    expect(maskAddress('nonsense')).to.equal('***');
    const page = confirmationPage('<b>@x<script>.org');
    expect(page).to.include('&lt;***@x&lt;script&gt;.org').and.not.include('<script>');
    expect(page).to.include(
      '<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click">',
    );
    expect(page).to.not.match(/\b(src|href)=/);
    expect(unsubscribedPage('ann@example.org')).to.include('a***@example.org').and.not.include('<form');
  });
});

function without(e: TrackedEmail) {
  return { productId: e.productId, emailId: e.emailId, recipient: e.recipient };
}
