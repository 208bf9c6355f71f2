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
const KEY_HEADER_NAMES: ReadonlySet<string> = new Set(PUBLIC_KEY_HEADERS);
const KEY_HEADER_LENGTHS: ReadonlySet<number> = new Set(PUBLIC_KEY_HEADERS.map((name) => name.length));

/** The lower-case key header `name` is, or undefined; the length rules out most names cheaply. */
function keyHeaderName(name: string): KeyHeaderName | undefined {
  if (!KEY_HEADER_LENGTHS.has(name.length)) return undefined;
  const lower = name.toLowerCase();
  return KEY_HEADER_NAMES.has(lower) ? (lower as KeyHeaderName) : undefined;
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

const [AUTHORIZATION, PUBLIC_KEY, API_KEY] = PUBLIC_KEY_HEADERS;

/** `view` without the key headers, written into `into` (plain comparisons: the fastest here). */
function withoutKeyHeaders<T>(view: Record<string, T>, into: Record<string, T>): Record<string, T> {
  for (const name in view) {
    if (name !== AUTHORIZATION && name !== PUBLIC_KEY && name !== API_KEY) into[name] = view[name]!;
  }
  return into;
}

/** Reads the key headers of `req` and removes them from every view of its headers. */
export function takeKeyHeaders(req: IncomingMessage): KeyHeaderValues {
  const raw = req.rawHeaders;
  let first = -1;
  for (let i = 0; i < raw.length; i += 2) {
    if (keyHeaderName(raw[i]!) !== undefined) {
      first = i;
      break;
    }
  }
  if (first < 0) return NONE;

  // Views already built are replaced by copies; headersDistinct stays lazy when its count can be
  // lowered, and is built now (before the array shrinks) when it cannot.
  const slotted = req as unknown as Slotted;
  const lazy = SLOTS !== null && slotted[SLOTS.count] === raw.length;
  if (!lazy || slotted[SLOTS.headers]) req.headers = withoutKeyHeaders(req.headers, {});
  if (!lazy || slotted[SLOTS.distinct]) {
    req.headersDistinct = withoutKeyHeaders(req.headersDistinct, Object.create(null));
  }

  const values: Partial<Record<KeyHeaderName, string>> = {};
  let kept = first;
  for (let i = first; i < raw.length; i += 2) {
    const name = raw[i]!;
    const value = raw[i + 1]!;
    const key = keyHeaderName(name);
    if (key === undefined) {
      raw[kept++] = name;
      raw[kept++] = value;
      continue;
    }
    const prior = values[key];
    if (prior === undefined) values[key] = value;
    else if (key !== AUTHORIZATION) values[key] = `${prior}, ${value}`;
  }
  raw.length = kept;
  if (lazy) slotted[SLOTS.count] = kept;
  return values;
}
