// A handler's RouteResult onto the wire, the same for every surface.
import type { Response } from 'express';
import type { RouteResult } from './route-def.ts';

export function sendResult(res: Response, result: RouteResult): void {
  res.status(result.status);
  if (result.headers) res.set(result.headers);
  if (result.body === undefined) res.end();
  else if (result.contentType) res.type(result.contentType).send(result.body);
  else res.json(result.body);
}
