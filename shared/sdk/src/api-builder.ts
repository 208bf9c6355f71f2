// The nested object of methods a client exposes, built from a generated operation table: one
// method per operation at the path its operationId names (naming.ts), typed by the generated
// interface (generated/*-api.ts) that the same table was written with.
import type { Args, OperationSpec } from './operation.ts';
import { paginate } from './pagination.ts';
import type { Call, RequestOptions } from './transport.ts';

type Namespace = { [name: string]: Namespace | ((args?: Args, options?: RequestOptions) => unknown) };

export function buildApi(
  operations: readonly OperationSpec[],
  pathOf: (operationId: string) => string[],
  call: Call,
): Namespace {
  const root: Namespace = {};
  for (const op of operations) {
    const path = pathOf(op.id);
    const method = path.pop()!;
    let node = root;
    for (const name of path) {
      const child = node[name] ?? {};
      if (typeof child === 'function') throw new Error(`${op.id}: "${name}" is already a method`);
      node[name] = child;
      node = child;
    }
    if (method in node) throw new Error(`${op.id}: "${method}" is already taken`);
    node[method] = op.list
      ? (args: Args = {}, options?: RequestOptions) => paginate(call, op, args, options)
      : (args: Args = {}, options?: RequestOptions) => call(op, args, options);
  }
  return root;
}
