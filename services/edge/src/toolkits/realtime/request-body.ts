// Request bodies of the realtime toolkit's public routes, with the spec's caps (Limits → Sizes):
// 256 KiB on POST /messages, 64 KiB on every other realtime route. Exactly the cap passes, one
// byte more is 413 (checked on Content-Length before reading, and while reading a chunked
// body). An absent body reads as {} (validation then names the missing fields); a body on a
// GET route is refused. Parser errors map to the platform's bodies through the edge's error
// handler (clientErrorOf): 400 invalid_json, 413 payload_too_large, 415.

import { REALTIME_ERRORS } from '@lattice/realtime';
import type { Request, Response } from 'express';
import express from 'express';

const JSON_TYPES = ['application/json', 'application/*+json'];

function hasBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

type Middleware = (req: Request, res: Response, next: (err?: unknown) => void) => void;

function run(middleware: Middleware, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => middleware(req, res, (err) => (err ? reject(err) : resolve())));
}

const jsonParsers = new Map<number, Middleware>();
const rawParsers = new Map<number, Middleware>();

/** The parsed JSON body of a POST route, `{}` when none was sent. */
export async function readJsonBody(req: Request, res: Response, limitBytes: number): Promise<unknown> {
  if (!hasBody(req)) return {};
  if (!req.is(JSON_TYPES)) throw REALTIME_ERRORS.unsupportedMediaType();
  let parse = jsonParsers.get(limitBytes);
  if (!parse) {
    parse = express.json({
      limit: limitBytes,
      strict: false,
      inflate: false,
      type: () => true,
    }) as Middleware;
    jsonParsers.set(limitBytes, parse);
  }
  await run(parse, req, res);
  return (req.body as unknown) ?? {};
}

/** GET routes take no body: over the cap 413 (as on every realtime route), else 400. */
export async function refuseBody(req: Request, res: Response, limitBytes: number): Promise<void> {
  if (!hasBody(req)) return;
  let read = rawParsers.get(limitBytes);
  if (!read) {
    read = express.raw({ limit: limitBytes, inflate: false, type: () => true }) as Middleware;
    rawParsers.set(limitBytes, read);
  }
  await run(read, req, res);
  throw REALTIME_ERRORS.unexpectedBody();
}
