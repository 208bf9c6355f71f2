// `$ref` handling shared by the OpenAPI generator (refs rewritten to #/components/schemas/…)
// and the tool catalog (refs inlined, since a tool's input schema must stand alone).
import type { JsonSchema, SchemaRegistry } from './schema-registry.ts';

/** Keywords whose values are data, not schemas: never look for `$ref` inside them. */
export const DATA_KEYWORDS: ReadonlySet<string> = new Set([
  'const',
  'enum',
  'default',
  'examples',
  'example',
]);
/** Identity keywords that only make sense at a file's top level. */
const FILE_KEYWORDS = new Set(['$id', '$schema']);

export interface RefTarget {
  id: string;
  /** JSON pointer inside the target schema, '' for the whole schema. */
  pointer: string;
}

/** Lattice schemas reference each other as `<id>`, `<id>#/pointer`, or `#/pointer` (same file). */
export function resolveRef(ref: string, ownId: string): RefTarget {
  const hash = ref.indexOf('#');
  const id = hash === -1 ? ref : ref.slice(0, hash);
  const pointer = hash === -1 ? '' : ref.slice(hash + 1);
  if (pointer !== '' && !pointer.startsWith('/')) throw new Error(`unsupported $ref "${ref}" in ${ownId}`);
  if (id !== '' && !/^[a-z0-9][a-z0-9.-]*$/.test(id))
    throw new Error(`unsupported $ref "${ref}" in ${ownId}`);
  return { id: id === '' ? ownId : id, pointer };
}

function walk(node: unknown, visit: (obj: Record<string, unknown>) => unknown): unknown {
  if (Array.isArray(node)) return node.map((n) => walk(n, visit));
  if (typeof node !== 'object' || node === null) return node;
  return visit(node as Record<string, unknown>);
}

function copyChildren(
  obj: Record<string, unknown>,
  recurse: (child: unknown) => unknown,
  skip: ReadonlySet<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) {
    if (skip.has(key)) continue;
    out[key] = DATA_KEYWORDS.has(key) ? structuredClone(value) : recurse(value);
  }
  return out;
}

/** Deep copy of schema `ownId` with every `$ref` replaced by `rewrite(target)`; `$id`/`$schema` dropped. */
export function mapRefs(
  schema: JsonSchema,
  ownId: string,
  rewrite: (target: RefTarget) => string,
): JsonSchema {
  const visit = (obj: Record<string, unknown>): unknown => {
    const out = copyChildren(obj, (c) => walk(c, visit), FILE_KEYWORDS);
    if (typeof obj.$ref === 'string') out.$ref = rewrite(resolveRef(obj.$ref, ownId));
    return out;
  };
  return walk(schema, visit) as JsonSchema;
}

/** The node `pointer` names inside `schema`; throws naming `where` when there is none. */
export function atPointer(schema: JsonSchema, pointer: string, where: string): unknown {
  let node: unknown = schema;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof node !== 'object' || node === null || !(key in node)) {
      throw new Error(`$ref target ${where} does not exist`);
    }
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Schema `id` with every `$ref` inlined (recursive schemas cannot be, and are refused). */
export function dereference(id: string, registry: SchemaRegistry): JsonSchema {
  const inline = (target: RefTarget, stack: readonly string[]): unknown => {
    const key = `${target.id}#${target.pointer}`;
    if (stack.includes(key))
      throw new Error(`recursive $ref ${[...stack, key].join(' → ')} cannot be inlined`);
    const schema = registry.get(target.id);
    if (!schema) throw new Error(`$ref to unknown schema "${target.id}"`);
    const node = target.pointer === '' ? schema : atPointer(schema, target.pointer, key);
    const visit = (obj: Record<string, unknown>): unknown => {
      const rest = copyChildren(obj, (c) => walk(c, visit), new Set([...FILE_KEYWORDS, '$defs', '$ref']));
      if (typeof obj.$ref !== 'string') return rest;
      const resolved = inline(resolveRef(obj.$ref, target.id), [...stack, key]);
      // Keywords beside a $ref apply in addition to it (2020-12), which allOf expresses exactly.
      return Object.keys(rest).length === 0 ? resolved : { allOf: [resolved], ...rest };
    };
    return walk(node, visit);
  };
  return inline({ id, pointer: '' }, []) as JsonSchema;
}
