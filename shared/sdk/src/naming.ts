// Where an operation lives on the client (shared/sdk/README.md): the
// operationId's first segment is the area, its last the method, the ones between the path of
// nested objects, each camelCased at `-`. `organization_public-keys_update-scope` →
// ['organization', 'publicKeys', 'updateScope']. The public edge's operations drop `public_` first.

const camelCase = (segment: string): string =>
  segment.replace(/-([a-z0-9])/g, (_m, next: string) => next.toUpperCase());

/** The property path of an operation's method, area first and method last. */
export function methodPath(operationId: string): string[] {
  const segments = operationId.split('_');
  if (segments.length < 2 || segments.some((s) => !/^[a-z][a-z0-9-]*$/.test(s) || s.endsWith('-'))) {
    throw new Error(`operationId "${operationId}" does not name an area and a method`);
  }
  return segments.map(camelCase);
}

/** The public edge's operations, under the same scheme once their `public_` prefix is dropped. */
export function edgeMethodPath(operationId: string): string[] {
  if (!operationId.startsWith('public_')) throw new Error(`"${operationId}" is not a public operation`);
  return methodPath(operationId.slice('public_'.length));
}
