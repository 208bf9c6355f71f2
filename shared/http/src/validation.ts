// ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1), compiled once per schema and registry:
// every surface that validates against a registry (the management router, the public edge's
// routes) gets the very same compiled function for a given `$id`, so one body meets one
// validator wherever it arrives. Path and query values arrive as strings, so those validators
// coerce types; bodies are JSON and are validated as sent.
import type { FieldError } from '@lattice/core';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvErrors from 'ajv-errors';
import addFormats from 'ajv-formats';
import { HTTP_ERRORS } from './http-errors.ts';
import { type ResponseDef, responseDef } from './route-def.ts';
import type { SchemaRegistry } from './schema-registry.ts';

export interface RouteValidators {
  params?: ValidateFunction;
  query?: ValidateFunction;
  body?: ValidateFunction;
  responses: Map<number, ValidateFunction>;
}

/** What a route declares about its request and answers: a management RouteDef or a public route. */
export interface RequestSpec {
  request?: { params?: string; query?: string; body?: string };
  responses?: Record<number, string | ResponseDef>;
}

export type Location = 'params' | 'query' | 'body' | 'response';

const MAX_FIELD_ERRORS = 50;

function createAjv(schemas: SchemaRegistry, opts: { coerce: boolean; defaults: boolean }): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    coerceTypes: opts.coerce,
    useDefaults: opts.defaults,
  });
  addFormats(ajv);
  // `errorMessage` in a schema words a failure for people where ajv's own words would show a
  // regular expression (channel names, subjects); the same text on every surface.
  ajvErrors(ajv);
  for (const id of schemas.ids()) ajv.addSchema(schemas.get(id)!);
  return ajv;
}

interface Compilers {
  /** Path and query: strings coerced to the schema's types, defaults applied. */
  coercing: Ajv2020;
  bodies: Ajv2020;
  responses: Ajv2020;
}

const compilersByRegistry = new WeakMap<SchemaRegistry, Compilers>();

function compilersOf(schemas: SchemaRegistry): Compilers {
  let compilers = compilersByRegistry.get(schemas);
  if (!compilers) {
    compilers = {
      coercing: createAjv(schemas, { coerce: true, defaults: true }),
      bodies: createAjv(schemas, { coerce: false, defaults: true }),
      responses: createAjv(schemas, { coerce: false, defaults: false }),
    };
    compilersByRegistry.set(schemas, compilers);
  }
  return compilers;
}

function compile(ajv: Ajv2020, id: string): ValidateFunction {
  // getSchema compiles on first use and hands back the same function afterwards.
  const fn = ajv.getSchema(id);
  if (!fn) throw new Error(`schema "${id}" did not compile`);
  return fn;
}

/** The validators of one route, from the registry's shared compiled schemas. */
export function routeValidators(spec: RequestSpec, schemas: SchemaRegistry): RouteValidators {
  const { coercing, bodies, responses } = compilersOf(schemas);
  const { params, query, body } = spec.request ?? {};
  const compiled: RouteValidators = { responses: new Map() };
  if (params) compiled.params = compile(coercing, params);
  if (query) compiled.query = compile(coercing, query);
  if (body) compiled.body = compile(bodies, body);
  for (const [status, def] of Object.entries(spec.responses ?? {})) {
    const schema = responseDef(def).schema;
    if (schema) compiled.responses.set(Number(status), compile(responses, schema));
  }
  return compiled;
}

export function compileRouteValidators<R extends RequestSpec>(
  routes: readonly R[],
  schemas: SchemaRegistry,
): Map<R, RouteValidators> {
  return new Map(routes.map((route) => [route, routeValidators(route, schemas)]));
}

/**
 * Validates (and coerces, and fills defaults into) the parts of a request; throws the 400
 * `validation_error` naming every failing field of every part. A part the route declares no
 * schema for accepts nothing: each of its fields is "not allowed".
 */
export function checkRequest(
  v: RouteValidators,
  parts: { params: Record<string, unknown>; query: Record<string, unknown>; body: unknown },
): void {
  // The valid case allocates nothing: the public edge runs this on every request it passes.
  const paramsOk = v.params ? v.params(parts.params) : isEmpty(parts.params);
  const queryOk = v.query ? v.query(parts.query) : isEmpty(parts.query);
  const bodyOk = v.body ? v.body(parts.body) : true;
  if (paramsOk && queryOk && bodyOk) return;
  const fields = [
    ...(v.params ? problems(v.params, paramsOk, 'params') : unexpectedFields(parts.params, 'params')),
    ...(v.query ? problems(v.query, queryOk, 'query') : unexpectedFields(parts.query, 'query')),
    ...(v.body ? problems(v.body, bodyOk, 'body') : []),
  ];
  throw HTTP_ERRORS.validation(fields);
}

function isEmpty(data: Record<string, unknown>): boolean {
  for (const _ in data) return false;
  return true;
}

/** The field errors of a validator that just ran (its `errors` are those of its last call). */
function problems(validate: ValidateFunction, ok: boolean, location: Location): FieldError[] {
  return ok ? [] : toFieldErrors(validate.errors ?? [], location);
}

/**
 * Validates data against any registered schema by `$id`, without coercion or defaults; for
 * tests and tools that check answers against schemas/http.
 */
export function createSchemaChecker(schemas: SchemaRegistry): (id: string, data: unknown) => FieldError[] {
  const ajv = compilersOf(schemas).responses;
  return (id, data) => {
    const validate = ajv.getSchema(id);
    if (!validate) throw new Error(`schema "${id}" is not in the registry`);
    return check(validate, data, 'response');
  };
}

/** Validates `data` (mutating it with coercions and defaults); returns the problems found. */
export function check(validate: ValidateFunction, data: unknown, location: Location): FieldError[] {
  if (validate(data)) return [];
  return toFieldErrors(validate.errors ?? [], location);
}

/** Each key of `data` is a field the route does not accept. */
export function unexpectedFields(data: Record<string, unknown>, location: Location): FieldError[] {
  return Object.keys(data).map((key) => ({ path: joinPath(location, [key]), message: 'is not allowed' }));
}

export function toFieldErrors(errors: readonly ErrorObject[], location: Location): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const e of errors) {
    const segments = e.instancePath === '' ? [] : e.instancePath.slice(1).split('/').map(unescapePointer);
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      segments.push(String(e.params.missingProperty));
      message = 'is required';
    } else if (e.keyword === 'additionalProperties' || e.keyword === 'unevaluatedProperties') {
      segments.push(String(e.params.additionalProperty ?? e.params.unevaluatedProperty));
      message = 'is not allowed';
    }
    const field = { path: joinPath(location, segments), message };
    const key = `${field.path}\u0000${field.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(field);
    if (out.length === MAX_FIELD_ERRORS) break;
  }
  return out;
}

function unescapePointer(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** `body` + [`to`, `0`, `a.b`] → `body.to[0]["a.b"]`: readable, and unambiguous for odd keys. */
function joinPath(location: Location, segments: readonly string[]): string {
  let path: string = location;
  for (const s of segments) {
    if (/^\d+$/.test(s)) path += `[${s}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(s)) path += `.${s}`;
    else path += `[${JSON.stringify(s)}]`;
  }
  return path;
}
