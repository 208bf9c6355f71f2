// Taking the credential out of a request before a toolkit sees it (spec: all three key headers
// are stripped), from every view Node offers of the headers: `headers`, `headersDistinct` and
// `rawHeaders` (which a proxying handler might copy).
//
// One pass over rawHeaders reads the key headers' values and compacts the array without them.
// The values are composed as Node composes `headers` (the first Authorization wins, repeated
// X-Public-Key / X-Api-Key values are joined with ", "), so the key read is the one
// `req.headers` would have shown (key-headers.test.ts holds the two together).
//
// Node's server builds `headers` before any handler runs (it reads Expect and Connection); the
// edge replaces it with a copy without the key headers rather than deleting them, because a
// delete turns the object into a slower dictionary for the rest of the request. `headersDistinct`
// is built lazily, from rawHeaders up to the header count the parser saw; where that count can be
// found (an internal slot, probed once below) the edge lowers it to the stripped length, so that
// view is never built for nothing and never holds the credential. Otherwise (another Node) it is
// built before the array shrinks, since a view built later from an array shorter than the count
// throws, and copied the same way.
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { PUBLIC_KEY_HEADERS } from '@lattice/keys';

type KeyHeaderName = (typeof PUBLIC_KEY_HEADERS)[number];

/** The key headers a request carried, by lower-case name; absent names were not sent. */
export type KeyHeaderValues = Readonly<Partial<Record<KeyHeaderName, string>>>;

const NONE: KeyHeaderValues = Object.freeze({});
const [AUTHORIZATION, PUBLIC_KEY, API_KEY] = PUBLIC_KEY_HEADERS;

/** Whether `name` is `lower` in any letter case (ASCII; `lower` is lower case and as long). */
function sameNameAnyCase(name: string, lower: string): boolean {
  if (name === lower) return true;
  for (let i = 0; i < lower.length; i++) {
    let c = name.charCodeAt(i);
    if (c >= 65 && c <= 90) c |= 0x20;
    if (c !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * The key header `name` is, as the name's lower-case constant, or undefined. Decided by length
 * first (most names have none of the three lengths) and then compared in place, since a
 * toLowerCase() copy per header costs more than the whole comparison; returning the constant
 * (not a lower-cased copy) keeps property accesses by this name on V8's fast path.
 */
function keyHeaderName(name: string): KeyHeaderName | undefined {
  switch (name.length) {
    case 13:
      return sameNameAnyCase(name, AUTHORIZATION) ? AUTHORIZATION : undefined;
    case 12:
      return sameNameAnyCase(name, PUBLIC_KEY) ? PUBLIC_KEY : undefined;
    case 9:
      return sameNameAnyCase(name, API_KEY) ? API_KEY : undefined;
    default:
      return undefined;
  }
}

interface HeaderSlots {
  /** How many entries of rawHeaders the lazy views read. */
  count: symbol;
  headers: symbol;
  distinct: symbol;
}

type Slotted = Record<symbol, unknown>;

function slotNamed(target: object, description: string): symbol | undefined {
  return Object.getOwnPropertySymbols(target).find((s) => s.description === description);
}

/**
 * Finds Node's slots behind the lazy header views and checks on a real IncomingMessage that
 * lowering the count hides the entries beyond it from both views. Null when anything differs
 * (another Node version): the edge then takes the slower path that deletes.
 */
function probeHeaderSlots(): HeaderSlots | null {
  try {
    const fresh = () => {
      const req = new IncomingMessage(new Socket());
      req.rawHeaders = ['Accept', 'a', 'X-Other', 'b'];
      return req;
    };
    const first = fresh();
    const count = slotNamed(first, 'kHeadersCount');
    const headers = slotNamed(first, 'kHeaders');
    if (!count || !headers || (first as unknown as Slotted)[headers] !== null) return null;
    (first as unknown as Slotted)[count] = 2;
    void first.headersDistinct;
    const distinct = slotNamed(first, 'kHeadersDistinct');
    if (!distinct) return null;
    const second = fresh();
    (second as unknown as Slotted)[count] = 2;
    const shown = JSON.stringify([first.headers, { ...first.headersDistinct }, second.headers]);
    return shown === JSON.stringify([{ accept: 'a' }, { accept: ['a'] }, { accept: 'a' }])
      ? { count, headers, distinct }
      : null;
  } catch {
    return null;
  }
}

const SLOTS = probeHeaderSlots();

/** Whether this Node lets the edge leave headersDistinct unbuilt (for tests). */
export const stripsLazily = SLOTS !== null;

/** `view` without the key headers, written into `into` (plain comparisons: the fastest here). */
function withoutKeyHeaders<T>(view: Record<string, T>, into: Record<string, T>): Record<string, T> {
  for (const name in view) {
    if (name !== AUTHORIZATION && name !== PUBLIC_KEY && name !== API_KEY) into[name] = view[name]!;
  }
  return into;
}

/**
 * Reads the key headers of `req` and removes them from every view of its headers, in one pass
 * over rawHeaders that starts compacting it at the first key header.
 */
export function takeKeyHeaders(req: IncomingMessage): KeyHeaderValues {
  const raw = req.rawHeaders;
  const slotted = req as unknown as Slotted;
  /** Node's slots when headersDistinct is left lazy (its count lowered at the end), else null. */
  let lazy: HeaderSlots | null = null;
  /** Where the next kept header goes; -1 until the first key header. */
  let kept = -1;
  let authorization: string | undefined;
  let publicKey: string | undefined;
  let apiKey: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const value = raw[i + 1]!;
    const key = keyHeaderName(name);
    if (key === undefined) {
      if (kept >= 0) {
        raw[kept++] = name;
        raw[kept++] = value;
      }
      continue;
    }
    if (kept < 0) {
      // Before the array changes: views already built are replaced by copies; headersDistinct
      // stays lazy when its count can be lowered, and is built now when it cannot.
      kept = i;
      lazy = SLOTS !== null && slotted[SLOTS.count] === raw.length ? SLOTS : null;
      if (!lazy || slotted[lazy.headers]) req.headers = withoutKeyHeaders(req.headers, {});
      if (!lazy || slotted[lazy.distinct]) {
        req.headersDistinct = withoutKeyHeaders(req.headersDistinct, Object.create(null));
      }
    }
    // As Node composes req.headers: the first Authorization wins, the others are joined.
    if (key === AUTHORIZATION) authorization ??= value;
    else if (key === PUBLIC_KEY) publicKey = publicKey === undefined ? value : `${publicKey}, ${value}`;
    else apiKey = apiKey === undefined ? value : `${apiKey}, ${value}`;
  }
  if (kept < 0) return NONE;
  raw.length = kept;
  if (lazy) slotted[lazy.count] = kept;
  const values: Partial<Record<KeyHeaderName, string>> = {};
  if (authorization !== undefined) values.authorization = authorization;
  if (publicKey !== undefined) values['x-public-key'] = publicKey;
  if (apiKey !== undefined) values['x-api-key'] = apiKey;
  return values;
}
