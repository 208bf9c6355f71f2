import { expect } from 'chai';
import { decodeAttributeValue } from './html-attribute.ts';
import { rewriteHtml } from './html-rewrite.ts';

const PIXEL = 'https://edge.test/p/mail/t/open/tok';
const IMG = `<img src="${PIXEL}" width="1" height="1" alt="" style="display:none">`;

/** Records the URLs handed over; tracks each as a URL holding `&` (which the output must encode). */
function tracker() {
  const seen: string[] = [];
  return {
    seen,
    clickUrl: (url: string) => {
      seen.push(url);
      return `https://edge.test/c/${seen.length}?t&u`;
    },
  };
}

describe('rewriteHtml: links', () => {
  it('rewrites double-quoted, single-quoted and unquoted hrefs, keeping each quoting', () => {
    const t = tracker();
    const html =
      '<p><a href="https://a.example/1">a</a> <A HREF=\'http://b.example/2\' class=x>b</A> <a href=https://c.example/3>c</a></p>';
    expect(rewriteHtml(html, { clickUrl: t.clickUrl })).to.equal(
      '<p><a href="https://edge.test/c/1?t&amp;u">a</a> <A HREF=\'https://edge.test/c/2?t&amp;u\' class=x>b</A> <a href=https://edge.test/c/3?t&amp;u>c</a></p>',
    );
    expect(t.seen).to.deep.equal(['https://a.example/1', 'http://b.example/2', 'https://c.example/3']);
  });

  it('decodes character references before handing the URL over', () => {
    const t = tracker();
    rewriteHtml(
      '<a href="https://x.example/?a=1&amp;b=2&#38;c=3&#x26;d=4&quot;">x</a><a href="https://x.example/?q=1&copy=2&b">y</a>',
      t,
    );
    expect(t.seen).to.deep.equal(['https://x.example/?a=1&b=2&c=3&d=4"', 'https://x.example/?q=1&copy=2&b']);
  });

  it('leaves alone links it does not track: mailto, tel, anchors, relative, malformed, unknown references', () => {
    const t = tracker();
    const html = [
      '<a href="mailto:ann@example.org">m</a>',
      '<a href="tel:+15551234">t</a>',
      '<a href="#top">a</a>',
      '<a href="/relative/path">r</a>',
      '<a href="//example.org/protocol-relative">p</a>',
      '<a href="https://">broken</a>',
      '<a href="http://exa mple.org/">space in host</a>',
      '<a href="javascript:alert(1)">j</a>',
      '<a href="https://x.example/?a=1&hellip;">unknown reference</a>',
      '<a name="anchor">no href</a>',
      '<a href>empty</a>',
      '<link href="https://fonts.example/css">',
      '<area href="https://area.example/">',
    ].join('\n');
    expect(rewriteHtml(html, t)).to.equal(html);
    expect(t.seen).to.deep.equal([]);
  });

  it('leaves a link as it is when clickUrl declines it (a URL too long for a token)', () => {
    const html = '<a href="https://x.example/">x</a>';
    expect(rewriteHtml(html, { clickUrl: () => null })).to.equal(html);
  });

  it('trims the spaces HTML ignores around a URL, and takes the first of duplicate hrefs', () => {
    const t = tracker();
    rewriteHtml('<a href="  https://x.example/a \n" href="https://y.example/">x</a>', t);
    expect(t.seen).to.deep.equal(['https://x.example/a']);
  });

  it('keeps every other byte: attributes with `>` inside quotes, comments, style and script text', () => {
    const t = tracker();
    const html = [
      '<!doctype html><html><head><title>a <a href="https://no.example/title"></title>',
      '<style>a[href^="http"]{color:red} /* <a href="https://no.example/style"> */</style>',
      '<script>var s = \'<a href="https://no.example/script">\';</script></head>',
      '<body><!-- <a href="https://no.example/comment"> -->',
      '<div title="<a href=\'https://no.example/attribute\'>">é ü 💌</div>',
      '<a data-x="1 > 0" href="https://yes.example/1" target="_blank">yes</a>',
      '</body></html>',
    ].join('\n');
    const out = rewriteHtml(html, t);
    expect(t.seen).to.deep.equal(['https://yes.example/1']);
    expect(out).to.equal(html.replace('https://yes.example/1', 'https://edge.test/c/1?t&amp;u'));
  });

  it('quotes an unquoted value when the tracked URL needs it', () => {
    const out = rewriteHtml('<a href=https://x.example/>x</a>', { clickUrl: () => 'https://e.test/a b"c' });
    expect(out).to.equal('<a href="https://e.test/a b&quot;c">x</a>');
  });

  it('stops at an unterminated tag and leaves the rest as it is', () => {
    const t = tracker();
    const html = '<a href="https://x.example/1">x</a><a title=\'never closed href="https://x.example/2">';
    expect(rewriteHtml(html, t)).to.equal(
      html.replace('https://x.example/1', 'https://edge.test/c/1?t&amp;u'),
    );
    expect(t.seen).to.deep.equal(['https://x.example/1']);
  });
});

describe('rewriteHtml: open pixel', () => {
  it('goes right before </body>, whatever its case', () => {
    expect(rewriteHtml('<html><body><p>hi</p></BODY ></html>', { openPixelUrl: PIXEL })).to.equal(
      `<html><body><p>hi</p>${IMG}</BODY ></html>`,
    );
  });

  it('goes at the end of a document without </body>, or one whose </body> is only in a comment', () => {
    expect(rewriteHtml('<p>hi</p>', { openPixelUrl: PIXEL })).to.equal(`<p>hi</p>${IMG}`);
    expect(rewriteHtml('<p>hi</p><!-- </body> -->', { openPixelUrl: PIXEL })).to.equal(
      `<p>hi</p><!-- </body> -->${IMG}`,
    );
  });

  it('goes before the last </body> and among the link edits in document order', () => {
    const t = tracker();
    const html = '<body><a href="https://a.example/">a</a></body><a href="https://b.example/">b</a></body>';
    expect(rewriteHtml(html, { ...t, openPixelUrl: PIXEL })).to.equal(
      `<body><a href="https://edge.test/c/1?t&amp;u">a</a></body><a href="https://edge.test/c/2?t&amp;u">b</a>${IMG}</body>`,
    );
  });

  it('escapes the pixel URL for its attribute, and changes nothing when asked nothing', () => {
    expect(rewriteHtml('', { openPixelUrl: 'https://e.test/?a=1&b="2"' })).to.equal(
      '<img src="https://e.test/?a=1&amp;b=&quot;2&quot;" width="1" height="1" alt="" style="display:none">',
    );
    const html = '<a href="https://x.example/">x</a></body>';
    expect(rewriteHtml(html, {})).to.equal(html);
  });
});

describe('rewriteHtml: 1 MiB documents in one pass', () => {
  const MiB = 1_048_576;

  it('rewrites every link of a 1 MiB document (over 14 000)', () => {
    const link = '<p><a href="https://shop.example/item?id=1&amp;ref=mail">Item</a></p>\n';
    const html = `<html><body>${link.repeat(Math.ceil(MiB / link.length))}</body></html>`;
    expect(html.length).to.be.above(MiB);
    let n = 0;
    const out = rewriteHtml(html, {
      clickUrl: (url) => {
        expect(url).to.equal('https://shop.example/item?id=1&ref=mail');
        n++;
        return 'https://e.test/c';
      },
      openPixelUrl: PIXEL,
    });
    expect(n)
      .to.equal(Math.ceil(MiB / link.length))
      .and.above(14_000);
    expect(out.split('href="https://e.test/c"').length - 1).to.equal(n);
    expect(out.endsWith(`${IMG}</body></html>`)).to.equal(true);
  });

  it('gets through adversarial 1 MiB inputs (open tags, quotes, references, comments) unchanged but for the pixel', () => {
    const adversarial = [
      '<a '.repeat(MiB / 3),
      `<a href="${'&amp'.repeat(MiB / 4)}`,
      `<a x='${'<a href='.repeat(MiB / 8)}`,
      '<!--'.repeat(MiB / 4),
      `<a href="https://x.example/${'&#'.repeat(MiB / 2)}">`,
      `<a href="https://x.example/?${'&#1234567890123'.repeat(MiB / 16)};">`,
      `<style>${'</styl'.repeat(MiB / 6)}`,
      '<'.repeat(MiB),
      '</ '.repeat(MiB / 3),
    ];
    for (const html of adversarial) {
      const seen: string[] = [];
      // Declines every link, so the output shows the scan changed nothing else.
      const clickUrl = (url: string) => {
        seen.push(url);
        return null;
      };
      expect(rewriteHtml(html, { clickUrl, openPixelUrl: PIXEL })).to.equal(html + IMG);
      expect(seen.length).to.be.at.most(1);
    }
  });
});

describe('decodeAttributeValue', () => {
  it('decodes as a browser does in an attribute, or refuses what it cannot know', () => {
    expect(decodeAttributeValue('a&amp;b&AMP;c&lt;&gt;&quot;&apos;')).to.equal('a&b&c<>"\'');
    expect(decodeAttributeValue('&#65;&#x42;&#X43;&#68')).to.equal('ABCD');
    expect(decodeAttributeValue('&amp&x')).to.equal('&&x');
    expect(decodeAttributeValue('?a=1&amp=2&lt5&copy=3')).to.equal('?a=1&amp=2&lt5&copy=3');
    expect(decodeAttributeValue('&# &#x; & &;')).to.equal('&# &#x; & &;');
    expect(decodeAttributeValue('&copy.')).to.equal(null);
    expect(decodeAttributeValue('&nbsp;')).to.equal(null);
    expect(decodeAttributeValue('&#0;')).to.equal(null);
    expect(decodeAttributeValue('&#x110000;')).to.equal(null);
    expect(decodeAttributeValue('&#xD800;')).to.equal(null);
    expect(decodeAttributeValue('&#150;')).to.equal(null);
  });
});
