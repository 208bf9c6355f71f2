// Open and click tracking in an email's html: the href of every link to an absolute http(s) URL
// becomes a click-tracking URL, and the open pixel goes before `</body>` (or at the end). Every
// other byte stays as it was: the document is not parsed into a tree and written back, it is
// scanned once, tag by tag, the way an HTML tokenizer reads it (quoted attribute values hide
// `>`, comments and the text of <style>, <script> and the like hide tags), and only the href
// values and the pixel's place are edited. Each character is looked at a bounded number of times,
// so a 1 MiB document costs one pass whatever it holds; an unterminated tag, comment or raw text
// element ends the scan there (a browser would read the rest as part of it too).
import { decodeAttributeValue, escapeAttribute } from './html-attribute.ts';
import { isHttpUrl } from './tracking-token.ts';

export interface RewriteOptions {
  /** Appends the 1x1 open pixel with this source when set. */
  openPixelUrl?: string;
  /** The tracked URL for a link's original URL; null leaves that link as it is. */
  clickUrl?: (originalUrl: string) => string | null;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

interface ValueSpan {
  start: number;
  end: number;
  quote: '"' | "'" | '';
}

/** Elements whose content is text, not markup (WHATWG raw text and escapable raw text). */
const RAW_TEXT = new Set(['script', 'style', 'title', 'textarea', 'xmp', 'iframe', 'noembed', 'noframes']);
const rawTextEnds = new Map<string, RegExp>();

function rawTextEnd(name: string): RegExp {
  let re = rawTextEnds.get(name);
  if (!re) {
    re = new RegExp(`</${name}[\\t\\n\\f\\r />]`, 'gi');
    rawTextEnds.set(name, re);
  }
  return re;
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 12 || code === 13;
}

function isAsciiAlpha(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

const ASCII_SPACE_EDGES = /^[\t\n\f\r ]+|[\t\n\f\r ]+$/g;
const NEEDS_QUOTES = /[\t\n\f\r "'=<>`]/;

/**
 * Reads the attributes of a tag from `i` (just after its name) to its `>`. Answers the index
 * after the `>` (or -1 when the input ends first) and, when asked, the span of the first `href`
 * attribute's value (HTML keeps the first of duplicate attributes).
 */
function readTag(html: string, i: number, wantHref: boolean): { end: number; href: ValueSpan | null } {
  const len = html.length;
  let href: ValueSpan | null = null;
  let seenHref = false;
  for (;;) {
    while (i < len && (isSpace(html.charCodeAt(i)) || html.charCodeAt(i) === 47)) i++; // spaces and '/'
    if (i >= len) return { end: -1, href: null };
    if (html.charCodeAt(i) === 62 /* > */) return { end: i + 1, href };
    const nameStart = i;
    i++; // the first character belongs to the name whatever it is ('=' included)
    for (; i < len; i++) {
      const c = html.charCodeAt(i);
      if (isSpace(c) || c === 47 || c === 62 || c === 61 /* = */) break;
    }
    const isHref =
      wantHref && !seenHref && i - nameStart === 4 && html.slice(nameStart, i).toLowerCase() === 'href';
    if (isHref) seenHref = true;
    let j = i;
    while (j < len && isSpace(html.charCodeAt(j))) j++;
    if (html.charCodeAt(j) !== 61 /* = */) continue; // no value; `i` is at the spaces before the next name
    j++;
    while (j < len && isSpace(html.charCodeAt(j))) j++;
    const q = html[j];
    let span: ValueSpan;
    if (q === '"' || q === "'") {
      const close = html.indexOf(q, j + 1);
      if (close < 0) return { end: -1, href: null };
      span = { start: j + 1, end: close, quote: q };
      i = close + 1;
    } else {
      let k = j;
      while (k < len && !isSpace(html.charCodeAt(k)) && html.charCodeAt(k) !== 62) k++;
      span = { start: j, end: k, quote: '' };
      i = k;
    }
    if (isHref) href = span;
  }
}

/** The href value written back in the quoting the document used (quoted when it must be). */
function encodeValue(value: string, quote: ValueSpan['quote']): string {
  if (quote === "'") return value.replaceAll('&', '&amp;').replaceAll("'", '&#39;');
  if (quote === '' && !NEEDS_QUOTES.test(value)) return value.replaceAll('&', '&amp;');
  const escaped = value.replaceAll('&', '&amp;').replaceAll('"', '&quot;');
  return quote === '"' ? escaped : `"${escaped}"`;
}

function trackedHref(html: string, span: ValueSpan, clickUrl: (url: string) => string | null): Edit | null {
  const decoded = decodeAttributeValue(html.slice(span.start, span.end));
  if (decoded === null) return null;
  const url = decoded.replace(ASCII_SPACE_EDGES, '');
  if (!isHttpUrl(url)) return null;
  const tracked = clickUrl(url);
  if (tracked === null) return null;
  return { start: span.start, end: span.end, text: encodeValue(tracked, span.quote) };
}

/** The html with tracked links and the open pixel, as `opts` asks; unchanged when it asks nothing. */
export function rewriteHtml(html: string, opts: RewriteOptions): string {
  const { clickUrl, openPixelUrl } = opts;
  if (!clickUrl && openPixelUrl === undefined) return html;
  const edits: Edit[] = [];
  let bodyEnd = -1;
  const len = html.length;
  let pos = 0;
  for (;;) {
    const lt = html.indexOf('<', pos);
    if (lt < 0) break;
    const next = html.charCodeAt(lt + 1);
    if (next === 33 /* ! */ || next === 63 /* ? */) {
      // A comment runs to `-->`; a doctype, CDATA or processing instruction to the first `>`.
      const comment = html.startsWith('<!--', lt);
      const end = comment ? html.indexOf('-->', lt + 4) : html.indexOf('>', lt + 2);
      if (end < 0) break;
      pos = end + (comment ? 3 : 1);
      continue;
    }
    const closing = next === 47; /* / */
    const nameStart = closing ? lt + 2 : lt + 1;
    if (!isAsciiAlpha(html.charCodeAt(nameStart))) {
      if (closing) {
        // `</` not followed by a letter: a bogus comment up to the next `>`.
        const end = html.indexOf('>', nameStart);
        if (end < 0) break;
        pos = end + 1;
      } else {
        pos = lt + 1; // a literal `<` in text
      }
      continue;
    }
    let nameEnd = nameStart + 1;
    while (nameEnd < len) {
      const c = html.charCodeAt(nameEnd);
      if (isSpace(c) || c === 47 || c === 62) break;
      nameEnd++;
    }
    const isLink =
      !closing && nameEnd - nameStart === 1 && (html[nameStart] === 'a' || html[nameStart] === 'A');
    const tag = readTag(html, nameEnd, isLink && clickUrl !== undefined);
    if (tag.end < 0) break;
    pos = tag.end;
    if (tag.href && clickUrl) {
      const edit = trackedHref(html, tag.href, clickUrl);
      if (edit) edits.push(edit);
      continue;
    }
    if (isLink || nameEnd - nameStart > 8) continue;
    const name = html.slice(nameStart, nameEnd).toLowerCase();
    if (closing) {
      if (name === 'body') bodyEnd = lt;
    } else if (RAW_TEXT.has(name)) {
      const end = rawTextEnd(name);
      end.lastIndex = tag.end;
      const found = end.exec(html);
      if (!found) break;
      pos = found.index; // the end tag itself is read next
    }
  }

  if (openPixelUrl !== undefined) {
    const pixel = `<img src="${escapeAttribute(openPixelUrl)}" width="1" height="1" alt="" style="display:none">`;
    const at = bodyEnd >= 0 ? bodyEnd : len;
    // Edits are in document order; the pixel goes in its place among them.
    let index = edits.length;
    while (index > 0 && edits[index - 1]!.start >= at) index--;
    edits.splice(index, 0, { start: at, end: at, text: pixel });
  }
  if (edits.length === 0) return html;
  const parts: string[] = [];
  let copied = 0;
  for (const edit of edits) {
    parts.push(html.slice(copied, edit.start), edit.text);
    copied = edit.end;
  }
  parts.push(html.slice(copied));
  return parts.join('');
}
