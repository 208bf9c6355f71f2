// The generated source of one client (the management API's `Lattice`, the public edge's
// `LatticeEdge`): its operation table (`*-operations.ts`, what the runtime builds the methods
// from) and its typed surface (`*-api.ts`: each operation's arguments and result, and the nested
// interface of methods, both named from the operationId exactly as the runtime names them).
import { dereferenceSchema, type SchemaRegistry } from '@lattice/http';
import type { OperationSpec } from '../src/operation.ts';
import type { CatalogOperation } from './catalog-source.ts';
import { docComment, type JsonSchema, pascalCase, propertyKey, type TypeEmitter } from './schema-types.ts';

/** Keywords that make a body more than a flat list of fields; such a body is passed as `body` (tool-catalog.ts). */
const COMPOSITE = ['allOf', 'anyOf', 'oneOf', 'not', 'if', 'patternProperties', 'dependentSchemas'];

export interface ClientSource {
  /** The interface of the nested methods: `LatticeApi`. */
  apiName: string;
  /** The table's constant: `MANAGEMENT_OPERATIONS`. */
  tableName: string;
  /** The prefix of the argument and result type names: '' or `Edge`. */
  typePrefix: string;
  /** A line for the top of both files. */
  what: string;
  /** Where a method lives: `['organization', 'publicKeys', 'list']`. */
  pathOf(operationId: string): string[];
  /** A line of the method's comment that says where the request goes. */
  where(op: CatalogOperation): string;
  /** Extra constants of the operations file (`export const CATALOG_VERSION = …`). */
  constants?: string;
}

export interface ClientFiles {
  api: string;
  operations: string;
  /** The exported names of the api file, to check that no two files export one name. */
  exportedNames: string[];
  specs: OperationSpec[];
}

const propertyNames = (id: string | undefined, schemas: SchemaRegistry): string[] =>
  id ? Object.keys((dereferenceSchema(id, schemas).properties ?? {}) as Record<string, unknown>) : [];

const requiredNames = (id: string | undefined, schemas: SchemaRegistry): string[] => {
  const required = id ? dereferenceSchema(id, schemas).required : undefined;
  return Array.isArray(required) ? (required as string[]) : [];
};

function isFlatBody(schema: JsonSchema): boolean {
  return schema.type === 'object' && !COMPOSITE.some((k) => k in schema);
}

/** The runtime's description of an operation: how its arguments split, whether it pages or takes a key. */
export function operationSpec(op: CatalogOperation, schemas: SchemaRegistry): OperationSpec {
  const { params, query, body, headers } = op.request;
  const headerNames = propertyNames(headers, schemas);
  const queryNames = propertyNames(query, schemas);
  const list = op.operationId.endsWith('_list');
  if (list) checkListShape(op, queryNames, schemas);
  return {
    id: op.operationId,
    method: op.method,
    path: op.path,
    ...(params ? { params: propertyNames(params, schemas) } : {}),
    ...(query ? { query: queryNames } : {}),
    ...(headers ? { headers: headerNames } : {}),
    ...(body ? { body: isFlatBody(dereferenceSchema(body, schemas)) ? 'fields' : 'nested' } : {}),
    ...(headerNames.includes('Idempotency-Key') ? { idempotent: true } : {}),
    ...(list ? { list: true } : {}),
  } as OperationSpec;
}

/** Every `…_list` pages alike (docs/management-api.md "Lists"); the SDK's iteration relies on it. */
function checkListShape(op: CatalogOperation, queryNames: string[], schemas: SchemaRegistry): void {
  const answers = successSchemas(op);
  const page = answers.length === 1 && answers[0] ? dereferenceSchema(answers[0], schemas) : undefined;
  const props = (page?.properties ?? {}) as Record<string, JsonSchema>;
  if (!queryNames.includes('cursor') || props.data?.type !== 'array' || !('next_cursor' in props)) {
    throw new Error(`${op.operationId} is a list but does not page by cursor into {data, next_cursor}`);
  }
}

function successSchemas(op: CatalogOperation): string[] {
  return Object.entries(op.responses)
    .filter(([status]) => Number(status) >= 200 && Number(status) < 300)
    .map(([, def]) => (typeof def === 'string' ? def : def.schema))
    .filter((id): id is string => id !== undefined);
}

function resultType(op: CatalogOperation, types: TypeEmitter): string {
  const results = Object.entries(op.responses)
    .filter(([status]) => Number(status) >= 200 && Number(status) < 300)
    .map(([, def]) => {
      const { schema, contentType } = typeof def === 'string' ? { schema: def, contentType: undefined } : def;
      if (contentType && !/\bjson\b/.test(contentType)) return 'string';
      return schema ? types.named(schema) : 'undefined';
    });
  const unique = [...new Set(results)];
  return unique.length === 0 ? 'unknown' : unique.join(' | ');
}

function argsType(op: CatalogOperation, spec: OperationSpec, types: TypeEmitter): string {
  const { params, query, body, headers } = op.request;
  const parts = [params, query, headers].filter((id): id is string => id !== undefined).map(types.named);
  if (body) parts.push(spec.body === 'nested' ? `{ body: ${types.named(body)} }` : types.named(body));
  return parts.length === 0 ? 'Record<string, never>' : parts.join(' & ');
}

function argsRequired(op: CatalogOperation, spec: OperationSpec, schemas: SchemaRegistry): boolean {
  const { params, query, body, headers } = op.request;
  if (spec.body === 'nested') return true;
  return [params, query, body, headers].some((id) => requiredNames(id, schemas).length > 0);
}

interface Tree {
  methods: Map<string, string>;
  children: Map<string, Tree>;
}

const newTree = (): Tree => ({ methods: new Map(), children: new Map() });

function place(tree: Tree, path: string[], signature: string, operationId: string): void {
  const method = path.at(-1)!;
  let node = tree;
  for (const name of path.slice(0, -1)) {
    if (node.methods.has(name)) throw new Error(`${operationId}: "${name}" is both a method and a namespace`);
    const child = node.children.get(name) ?? newTree();
    node.children.set(name, child);
    node = child;
  }
  if (node.methods.has(method) || node.children.has(method)) {
    throw new Error(`${operationId}: method "${path.join('.')}" is taken by another operation`);
  }
  node.methods.set(method, signature);
}

function renderTree(tree: Tree): string {
  const members = [
    ...[...tree.children.entries()].map(([name, child]) => `${propertyKey(name)}: ${renderTree(child)};`),
    ...[...tree.methods.values()],
  ];
  return `{\n${members.join('\n')}\n}`;
}

const HEADER = (what: string) =>
  `// Generated by shared/sdk/scripts/generate.ts (npm run sdk:generate) from ${what}.\n// Do not edit: regenerate. A unit test fails while this file differs from what the catalog gives.\n`;

export function emitClient(
  source: ClientSource,
  operations: readonly CatalogOperation[],
  schemas: SchemaRegistry,
  types: TypeEmitter,
): ClientFiles {
  const tree = newTree();
  const aliases: string[] = [];
  const exportedNames: string[] = [source.apiName];
  const specs: OperationSpec[] = [];
  const used = new Set<string>();
  const named: TypeEmitter = {
    ...types,
    named(id) {
      const name = types.named(id);
      used.add(name);
      return name;
    },
  };
  for (const op of operations) {
    const spec = operationSpec(op, schemas);
    specs.push(spec);
    const path = source.pathOf(op.operationId);
    const typeName = `${source.typePrefix}${pascalCase(path.join(' '))}`;
    const args = `${typeName}Args`;
    const result = `${typeName}Result`;
    exportedNames.push(args, result);
    aliases.push(
      `${docComment([`The arguments of \`${path.join('.')}\` (${op.operationId}).`])}export type ${args} = ${argsType(op, spec, named)};`,
      `${docComment([`The answer of \`${path.join('.')}\` (${op.operationId}).`])}export type ${result} = ${resultType(op, named)};`,
    );
    const optional = argsRequired(op, spec, schemas) ? '' : '?';
    const returns = spec.list ? `PageResult<${result}>` : `Promise<${result}>`;
    const doc = docComment([
      op.summary && !/[.!?]$/.test(op.summary) ? `${op.summary}.` : op.summary,
      op.description,
      source.where(op),
      spec.list ? 'Awaited: the first page. Iterated (`for await`): every item of every page.' : undefined,
      spec.idempotent
        ? 'An `Idempotency-Key` is made for the call when none is given, and kept across its retries.'
        : undefined,
    ]);
    place(
      tree,
      path,
      `${doc}${path.at(-1)}(args${optional}: ${args}, options?: RequestOptions): ${returns};`,
      op.operationId,
    );
  }
  const api = [
    HEADER(source.what),
    specs.some((spec) => spec.list) ? `import type { PageResult } from '../pagination.ts';` : '',
    `import type { RequestOptions } from '../transport.ts';`,
    `import type { ${[...used].sort().join(', ')} } from './schema-types.ts';`,
    '',
    aliases.join('\n\n'),
    '',
    `${docComment([`The methods of ${source.what}, one per operation.`])}export interface ${source.apiName} ${renderTree(tree)}`,
    '',
  ].join('\n');
  const operationsFile = [
    HEADER(source.what),
    `import type { OperationSpec } from '../operation.ts';`,
    '',
    source.constants ?? '',
    `export const ${source.tableName}: readonly OperationSpec[] = ${JSON.stringify(specs, null, 2)};`,
    '',
  ].join('\n');
  return { api, operations: operationsFile, exportedNames, specs };
}
