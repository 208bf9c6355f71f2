// The JSON Schemas of every request and response body live as files in schemas/http, one schema
// per file, identified by a `$id` equal to the file name without `.json`. Routes name schemas by
// that `$id`; schemas reference each other with `{"$ref": "<id>"}` or `"<id>#/$defs/…"`.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type JsonSchema = Record<string, unknown>;

export const HTTP_SCHEMAS_DIR = fileURLToPath(new URL('../../../schemas/http/', import.meta.url));

const ID_RE = /^[a-z0-9][a-z0-9.-]*$/;

export interface SchemaRegistry {
  get(id: string): JsonSchema | undefined;
  ids(): string[];
}

export function createSchemaRegistry(schemas: readonly JsonSchema[]): SchemaRegistry {
  const byId = new Map<string, JsonSchema>();
  for (const schema of schemas) {
    const id = schema.$id;
    if (typeof id !== 'string' || !ID_RE.test(id)) {
      throw new Error(`schema $id must match ${ID_RE}, got ${JSON.stringify(id)}`);
    }
    if (byId.has(id)) throw new Error(`duplicate schema $id "${id}"`);
    byId.set(id, schema);
  }
  return {
    get: (id) => byId.get(id),
    ids: () => [...byId.keys()].sort(),
  };
}

const loaded = new Map<string, SchemaRegistry>();

/**
 * Reads every `*.json` in `dir` (schemas/http by default); each `$id` must equal its file name.
 * Read once per folder and process: the surfaces of one process then share one registry, and
 * with it one compiled validator per schema (validation.ts).
 */
export function loadSchemaRegistry(dir: string = HTTP_SCHEMAS_DIR): SchemaRegistry {
  let registry = loaded.get(dir);
  if (!registry) {
    registry = readSchemaRegistry(dir);
    loaded.set(dir, registry);
  }
  return registry;
}

function readSchemaRegistry(dir: string): SchemaRegistry {
  const schemas = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const schema = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as JsonSchema;
      const expected = file.slice(0, -'.json'.length);
      if (schema.$id !== expected) {
        throw new Error(`${file}: $id must be "${expected}", got ${JSON.stringify(schema.$id)}`);
      }
      return schema;
    });
  return createSchemaRegistry(schemas);
}
