// Censoring credentials out of log objects before they are written (logger.ts applies it to every
// line's fields and to every child logger's bindings).
//
// Paths are dot-separated keys; `*` stands for any key at its level. A value at a path is replaced
// by the censor, whatever it is; nothing else changes. The caller's objects are never modified:
// an object holding a censored value is copied (own properties, prototype and all, so an Error
// keeps its message and stack for the error serializer) along the path down to it, and an object
// with nothing to censor is returned as it is. That last case is the hot one (a request line is a
// flat object of ids and numbers): one map lookup per key, no copy.
//
// Why not pino's own `redact`: it compiles every path into a stringifier that every value of a
// line then passes through, wildcards included, which cost about 8 µs a line here (half of a
// request line's cost on the edge; docs/benchmarks.md "Public edge"). Same paths, same censor.

interface PathNode {
  /** Censor the value found here. */
  censor: boolean;
  keys: Map<string, PathNode>;
  wildcard: PathNode | null;
}

export type Redactor = (value: Record<string, unknown>) => Record<string, unknown>;

function emptyNode(): PathNode {
  return { censor: false, keys: new Map(), wildcard: null };
}

/** `a.b`, `*.token`, `req.headers["x-api-key"]` → its keys. */
export function parseRedactionPath(path: string): string[] {
  const keys: string[] = [];
  const re = /([^.[\]]+)|\["([^"]+)"\]/g;
  let consumed = 0;
  for (let m = re.exec(path); m !== null; m = re.exec(path)) {
    const between = path.slice(consumed, m.index);
    if (between !== '' && between !== '.') throw new Error(`bad redaction path: ${path}`);
    keys.push(m[1] ?? m[2]!);
    consumed = m.index + m[0].length;
  }
  if (keys.length === 0 || consumed !== path.length) throw new Error(`bad redaction path: ${path}`);
  return keys;
}

function compile(paths: readonly string[]): PathNode {
  const root = emptyNode();
  for (const path of paths) {
    let node = root;
    for (const key of parseRedactionPath(path)) {
      if (key === '*') {
        node.wildcard ??= emptyNode();
        node = node.wildcard;
      } else {
        const next = node.keys.get(key) ?? emptyNode();
        node.keys.set(key, next);
        node = next;
      }
    }
    node.censor = true;
  }
  return root;
}

/**
 * A copy of `value` with the same prototype and own properties (enumerable or not). An error's
 * `stack` is an accessor bound to the original, so the copy gets its text as a plain value.
 */
function copyOf(value: object): Record<string, unknown> {
  const copy = Object.create(Object.getPrototypeOf(value), Object.getOwnPropertyDescriptors(value));
  if (value instanceof Error) {
    Object.defineProperty(copy, 'stack', { value: value.stack, writable: true, configurable: true });
  }
  return copy;
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  const existing = Object.getOwnPropertyDescriptor(target, key);
  Object.defineProperty(target, key, {
    value,
    enumerable: existing?.enumerable ?? true,
    writable: true,
    configurable: true,
  });
}

function hasChildren(node: PathNode): boolean {
  return node.keys.size > 0 || node.wildcard !== null;
}

function appended(list: PathNode[] | null, node: PathNode): PathNode[] {
  if (list === null) return [node];
  list.push(node);
  return list;
}

/** `value` censored under the nodes that apply at its level; `value` itself when nothing was. */
function redactUnder(value: object, nodes: readonly PathNode[], censor: unknown, depth: number): object {
  let out: Record<string, unknown> | null = null;
  const source = value as Record<string, unknown>;
  for (const key in source) {
    if (!Object.hasOwn(source, key)) continue;
    let censorHere = false;
    let below: PathNode[] | null = null;
    for (const node of nodes) {
      const keyed = node.keys.get(key);
      const wild = node.wildcard;
      if (keyed) {
        censorHere ||= keyed.censor;
        if (hasChildren(keyed)) below = appended(below, keyed);
      }
      if (wild) {
        censorHere ||= wild.censor;
        if (hasChildren(wild)) below = appended(below, wild);
      }
    }
    if (censorHere) {
      out ??= copyOf(value);
      setOwn(out, key, censor);
      continue;
    }
    const child = source[key];
    if (below === null || child === null || typeof child !== 'object' || depth > 8) continue;
    const redacted = redactUnder(child, below, censor, depth + 1);
    if (redacted !== child) {
      out ??= copyOf(value);
      setOwn(out, key, redacted);
    }
  }
  return out ?? value;
}

/** A function that censors `paths` in an object (see the file comment). */
export function createRedactor(paths: readonly string[], censor: unknown): Redactor {
  const root = compile(paths);
  return (value) => redactUnder(value, [root], censor, 0) as Record<string, unknown>;
}
