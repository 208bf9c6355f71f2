// JSON Schemas of schemas/http → TypeScript types, for the subset those schemas use: `type`
// (one or a list), `properties` / `required` / `additionalProperties`, `items`, `enum`, `const`,
// `$ref` (a whole file, a `$defs` entry, or any other pointer, which is inlined), `allOf`,
// `oneOf` and `anyOf`. Validation-only keywords (lengths, patterns, formats, errorMessage) add
// nothing to a type. Each file and each `$defs` entry that something names becomes one exported
// type (`key-common#/$defs/name` → `KeyCommonName`); descriptions become doc comments.
import type { SchemaRegistry } from '@lattice/http';

export type JsonSchema = Record<string, unknown>;

export interface RefTarget {
  id: string;
  /** JSON pointer inside the file, '' for the whole file. */
  pointer: string;
}

/** `public-key-created` → `PublicKeyCreated`; `update-scope` → `UpdateScope`. */
export function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

export function resolveRef(ref: string, ownId: string): RefTarget {
  const hash = ref.indexOf('#');
  const id = hash === -1 ? ref : ref.slice(0, hash);
  const pointer = hash === -1 ? '' : ref.slice(hash + 1);
  return { id: id === '' ? ownId : id, pointer };
}

export function atPointer(schema: unknown, pointer: string, where: string): unknown {
  let node = schema;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof node !== 'object' || node === null || !(key in node)) {
      throw new Error(`$ref target ${where} does not exist`);
    }
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A type expression and how it binds: a union or an intersection needs parentheses inside another. */
interface Ty {
  text: string;
  kind: 'atom' | 'union' | 'intersection';
}

const atom = (text: string): Ty => ({ text, kind: 'atom' });

function union(types: Ty[]): Ty {
  const texts = [...new Set(types.map((t) => (t.kind === 'union' ? t.text : wrap(t, 'union'))))];
  if (texts.length === 0) return atom('never');
  if (texts.length === 1) return { text: texts[0]!, kind: types.length === 1 ? types[0]!.kind : 'union' };
  return { text: texts.join(' | '), kind: 'union' };
}

function intersection(types: Ty[]): Ty {
  const useful = types.filter((t) => t.text !== 'unknown');
  if (useful.length === 0) return atom('unknown');
  if (useful.length === 1) return useful[0]!;
  return { text: useful.map((t) => wrap(t, 'intersection')).join(' & '), kind: 'intersection' };
}

/** Parenthesized where it would bind wrongly as an operand of `within`. */
function wrap(t: Ty, within: 'union' | 'intersection'): string {
  if (t.kind === 'atom' || t.kind === within) return t.text;
  if (within === 'union' && t.kind === 'intersection') return t.text;
  return `(${t.text})`;
}

/** A doc comment, or nothing. */
export function docComment(lines: ReadonlyArray<string | undefined>): string {
  const text = lines
    .filter((l): l is string => typeof l === 'string' && l.trim() !== '')
    .join('\n\n')
    .replaceAll('*/', '*\\/');
  if (text === '') return '';
  const body = text.split('\n');
  return body.length === 1
    ? `/** ${body[0]} */\n`
    : `/**\n${body.map((l) => ` *${l ? ` ${l}` : ''}`).join('\n')}\n */\n`;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
export const propertyKey = (name: string): string =>
  IDENTIFIER.test(name) ? name : `'${name.replaceAll("'", "\\'")}'`;

const literal = (value: unknown): string =>
  typeof value === 'string'
    ? `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
    : JSON.stringify(value);

export interface TypeEmitter {
  /** The exported type name of a whole schema file (registering it and what it names). */
  named(id: string): string;
  /** Every type registered so far and those they name, as TypeScript declarations sorted by name. */
  declarations(): string;
}

export function createTypeEmitter(registry: SchemaRegistry): TypeEmitter {
  /** Type name → what it declares. */
  const byName = new Map<string, RefTarget>();
  const nameByKey = new Map<string, string>();

  const schemaAt = (target: RefTarget): unknown => {
    const file = registry.get(target.id);
    if (!file) throw new Error(`$ref to unknown schema "${target.id}"`);
    return target.pointer === '' ? file : atPointer(file, target.pointer, `${target.id}#${target.pointer}`);
  };

  /** Named targets: a file, or an entry of a file's `$defs`. Anything else is inlined. */
  const isNamed = (target: RefTarget) => target.pointer === '' || /^\/\$defs\/[^/]+$/.test(target.pointer);

  const register = (target: RefTarget): string => {
    const key = `${target.id}#${target.pointer}`;
    const known = nameByKey.get(key);
    if (known) return known;
    const name = pascalCase(`${target.id} ${target.pointer.replace('/$defs/', '')}`);
    const other = byName.get(name);
    if (other) throw new Error(`type ${name} would name both ${other.id}#${other.pointer} and ${key}`);
    schemaAt(target); // fails early on a dangling reference
    byName.set(name, target);
    nameByKey.set(key, name);
    return name;
  };

  const refType = (ref: string, ownId: string, stack: readonly string[]): Ty => {
    const target = resolveRef(ref, ownId);
    if (isNamed(target)) return atom(register(target));
    const key = `${target.id}#${target.pointer}`;
    if (stack.includes(key)) throw new Error(`recursive inline $ref ${[...stack, key].join(' → ')}`);
    return typeOf(schemaAt(target), target.id, [...stack, key]);
  };

  function typeOf(node: unknown, ownId: string, stack: readonly string[] = []): Ty {
    if (node === true) return atom('unknown');
    if (node === false) return atom('never');
    if (typeof node !== 'object' || node === null)
      throw new Error(`not a schema in ${ownId}: ${JSON.stringify(node)}`);
    const s = node as JsonSchema;
    const parts: Ty[] = [];
    if (typeof s.$ref === 'string') parts.push(refType(s.$ref, ownId, stack));
    const composed = (['allOf', 'anyOf', 'oneOf'] as const).filter((k) => Array.isArray(s[k]));

    if ('const' in s) parts.push(atom(literal(s.const)));
    else if (Array.isArray(s.enum)) parts.push(union((s.enum as unknown[]).map((v) => atom(literal(v)))));
    else {
      const own = ownType(s, ownId, stack, parts.length > 0 || composed.length > 0);
      if (own) parts.push(own);
    }
    for (const key of composed) {
      const members = (s[key] as unknown[]).map((m) => typeOf(m, ownId, stack));
      parts.push(key === 'allOf' ? intersection(members) : union(members));
    }
    return intersection(parts);
  }

  /** What `type` and the object/array keywords say; undefined when they add nothing to `others`. */
  function ownType(s: JsonSchema, ownId: string, stack: readonly string[], others: boolean): Ty | undefined {
    const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];
    const objectLike = 'properties' in s || 'additionalProperties' in s || 'required' in s;
    if (types.length === 0) {
      if (objectLike) return objectType(s, ownId, stack, others);
      if ('items' in s) return arrayType(s, ownId, stack);
      return others ? undefined : atom('unknown');
    }
    return union(
      types.map((type): Ty => {
        switch (type) {
          case 'string':
            return atom('string');
          case 'integer':
          case 'number':
            return atom('number');
          case 'boolean':
            return atom('boolean');
          case 'null':
            return atom('null');
          case 'array':
            return arrayType(s, ownId, stack);
          case 'object':
            return objectType(s, ownId, stack, others && types.length === 1) ?? atom('unknown');
          default:
            throw new Error(`unsupported type "${type}" in ${ownId}`);
        }
      }),
    );
  }

  function arrayType(s: JsonSchema, ownId: string, stack: readonly string[]): Ty {
    const items = 'items' in s ? typeOf(s.items, ownId, stack) : atom('unknown');
    return atom(`Array<${items.text}>`);
  }

  /** An object type; undefined for a bare `type: object` beside others that say it all (allOf). */
  function objectType(
    s: JsonSchema,
    ownId: string,
    stack: readonly string[],
    others: boolean,
  ): Ty | undefined {
    const properties = (s.properties ?? {}) as Record<string, unknown>;
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    const names = [...new Set([...Object.keys(properties), ...required])];
    const extra = s.additionalProperties;
    const extraType = extra === undefined || extra === false ? undefined : typeOf(extra, ownId, stack);
    if (names.length === 0) {
      if (extraType) return atom(`Record<string, ${extraType.text}>`);
      if (others) return undefined;
      return atom(
        extra === false || s.unevaluatedProperties === false
          ? 'Record<string, never>'
          : 'Record<string, unknown>',
      );
    }
    const members = names.map((name) => {
      const prop = properties[name];
      const type = prop === undefined ? atom('unknown') : typeOf(prop, ownId, stack);
      const description =
        typeof prop === 'object' && prop !== null
          ? ((prop as JsonSchema).description as string | undefined)
          : undefined;
      return `${docComment([description])}${propertyKey(name)}${required.has(name) ? '' : '?'}: ${type.text};`;
    });
    // Declared properties must fit an index signature, so beside them it says only `unknown`.
    if (extraType) members.push('[key: string]: unknown;');
    return atom(`{\n${members.join('\n')}\n}`);
  }

  return {
    named: (id) => register({ id, pointer: '' }),
    declarations() {
      const done = new Set<string>();
      const out: Array<{ name: string; text: string }> = [];
      // Declaring a type may register the ones it names: go on until nothing new appears.
      for (
        let pending = [...byName.keys()];
        pending.length > 0;
        pending = [...byName.keys()].filter((n) => !done.has(n))
      ) {
        for (const name of pending) {
          done.add(name);
          const target = byName.get(name)!;
          const schema = schemaAt(target) as JsonSchema;
          const type = typeOf(schema, target.id);
          const doc = docComment([
            schema.title as string | undefined,
            schema.description as string | undefined,
          ]);
          const declaration =
            type.kind === 'atom' && type.text.startsWith('{')
              ? `export interface ${name} ${type.text}`
              : `export type ${name} = ${type.text};`;
          out.push({ name, text: `${doc}${declaration}` });
        }
      }
      return out
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map((d) => d.text)
        .join('\n\n');
    },
  };
}
