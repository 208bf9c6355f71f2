// Character references in an attribute value, decoded as a browser decodes them (WHATWG HTML
// "character reference state", in an attribute) for the references that occur in URLs, and
// refused for the rest. A link is tracked only when we know the URL the browser would follow:
// decodeAttributeValue answers null when the value holds a reference it does not know (one of
// HTML's two thousand named references, say `&hellip;`), and that link is left as it is.

/** Named references decoded here: the ones a URL meets (escaped `&`, quotes, angle brackets). */
const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  AMP: '&',
  lt: '<',
  LT: '<',
  gt: '>',
  GT: '>',
  quot: '"',
  QUOT: '"',
  apos: "'",
};

/**
 * The names HTML also decodes without a `;` (legacy references). In an attribute such a name is
 * decoded unless `=` or an alphanumeric follows it, so `?a=1&copy=2` keeps `&copy` while
 * `&copy.` becomes `©.`: a value where that happens to a name outside NAMED is refused.
 */
const LEGACY = new Set(
  (
    'AElig AMP Aacute Acirc Agrave Aring Atilde Auml COPY Ccedil ETH Eacute Ecirc Egrave Euml GT ' +
    'Iacute Icirc Igrave Iuml LT Ntilde Oacute Ocirc Ograve Oslash Otilde Ouml QUOT REG THORN ' +
    'Uacute Ucirc Ugrave Uuml Yacute aacute acirc acute aelig agrave amp aring atilde auml brvbar ' +
    'ccedil cedil cent copy curren deg divide eacute ecirc egrave eth euml frac12 frac14 frac34 gt ' +
    'iacute icirc iexcl igrave iquest iuml laquo lt macr micro middot nbsp not ntilde oacute ocirc ' +
    'ograve ordf ordm oslash otilde ouml para plusmn pound quot raquo reg sect shy sup1 sup2 sup3 ' +
    'szlig thorn times uacute ucirc ugrave uml uuml yacute yen yuml'
  ).split(' '),
);

const ALNUM = /[A-Za-z0-9]/;

function isAlnum(ch: string | undefined): boolean {
  return ch !== undefined && ALNUM.test(ch);
}

/** A numeric reference's code point, or null where HTML substitutes another (0, C1, surrogates). */
function codePointText(value: number): string | null {
  if (value === 0 || value > 0x10ffff) return null;
  if (value >= 0xd800 && value <= 0xdfff) return null;
  if (value >= 0x80 && value <= 0x9f) return null; // mapped through windows-1252 by browsers
  return String.fromCodePoint(value);
}

/** The attribute value as a browser reads it, or null when it holds a reference we do not decode. */
export function decodeAttributeValue(raw: string): string | null {
  let amp = raw.indexOf('&');
  if (amp < 0) return raw;
  let out = '';
  let copied = 0;
  while (amp >= 0) {
    out += raw.slice(copied, amp);
    const i = amp + 1;
    let text: string | null = '&';
    let end = i;
    if (raw[i] === '#') {
      const hex = raw[i + 1] === 'x' || raw[i + 1] === 'X';
      let j = hex ? i + 2 : i + 1;
      const digits = hex ? /[0-9A-Fa-f]/ : /[0-9]/;
      const start = j;
      // Long digit runs only matter up to "above 0x10FFFF"; stop counting the value there.
      let value = 0;
      while (j < raw.length && digits.test(raw[j]!)) {
        if (value <= 0x10ffff) value = value * (hex ? 16 : 10) + Number.parseInt(raw[j]!, 16);
        j++;
      }
      if (j > start) {
        text = codePointText(value);
        end = raw[j] === ';' ? j + 1 : j;
      }
      // No digits: the `&#` is literal text.
    } else {
      let j = i;
      while (j < raw.length && isAlnum(raw[j])) j++;
      const name = raw.slice(i, j);
      if (name !== '' && raw[j] === ';') {
        text = NAMED[name] ?? null;
        end = j + 1;
      } else if (name !== '' && LEGACY.has(name) && raw[j] !== '=') {
        // Decoded without `;` (the run ended, and neither `=` nor an alphanumeric follows).
        text = NAMED[name] ?? null;
        end = j;
      }
      // Otherwise the `&` is literal text (no reference starts here).
    }
    if (text === null) return null;
    out += text;
    copied = end;
    amp = raw.indexOf('&', copied);
  }
  return out + raw.slice(copied);
}

/** Escapes text for a double-quoted attribute value. */
export function escapeAttribute(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('"', '&quot;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;');
}

/** Escapes text for the body of an element. */
export function escapeText(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
