// Request bodies, the same on every surface. The cap is the route's own (exactly the cap passes,
// one byte more is 413, checked on Content-Length before reading and while reading a chunked
// body); the parser is told nothing about other types, so non-JSON bodies are refused with 415
// instead of silently arriving as "no body". An absent body reads as {}: validation then names
// the missing fields, and operations whose body is all optional need none. A route that takes
// no body refuses one with 400, or with 413 when it is over the cap (the cap covers every route).
// A route that takes a form (the one-click unsubscribe) reads one the same way, within its cap.
import express, { type Request, type RequestHandler, type Response } from 'express';
import { FORM_TYPES, parseFormBody } from './form-body.ts';
import { HTTP_ERRORS } from './http-errors.ts';
import { DEFAULT_BODY_LIMIT_BYTES } from './route-def.ts';

const JSON_TYPES = ['application/json', 'application/*+json'];
const FORM_REFUSAL = `Request body must be ${FORM_TYPES.join(' or ')}`;

/** A body is present when it is chunked or has a non-zero Content-Length. */
export function hasBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

export interface BodySpec {
  /** Whether the route takes a JSON body at all. */
  json: boolean;
  /**
   * Takes a form instead (x-www-form-urlencoded or multipart/form-data, form-body.ts), read as
   * an object of strings; `{}` when none was sent. With `json` false.
   */
  form?: boolean;
  /** Default: DEFAULT_BODY_LIMIT_BYTES. */
  limitBytes?: number;
}

/** Reads a request's body: the parsed JSON, `{}` when none was sent, undefined for body-less routes. */
export type BodyReader = (req: Request, res: Response) => Promise<unknown>;

export function bodyReader(spec: BodySpec): BodyReader {
  const limit = spec.limitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  if (spec.form) {
    const read = express.raw({ limit, inflate: false, type: () => true });
    return async (req, res) => {
      if (!hasBody(req)) return {};
      if (!req.is(FORM_TYPES)) throw HTTP_ERRORS.unsupportedMediaType(FORM_REFUSAL);
      await run(read, req, res);
      const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      return parseFormBody(req.headers['content-type'] ?? '', bytes);
    };
  }
  if (!spec.json) {
    const drain = express.raw({ limit, inflate: false, type: () => true });
    return async (req, res) => {
      if (!hasBody(req)) return undefined;
      await run(drain, req, res);
      throw HTTP_ERRORS.unexpectedBody();
    };
  }
  const parse = express.json({ limit, strict: false, inflate: false, type: () => true });
  return async (req, res) => {
    if (!hasBody(req)) return {};
    if (!req.is(JSON_TYPES)) throw HTTP_ERRORS.unsupportedMediaType();
    await run(parse, req, res);
    return (req.body as unknown) ?? {};
  };
}

/** Sets `res.locals.body` to what bodyReader reads, for the management router's middleware chain. */
export function bodyMiddleware(spec: BodySpec): RequestHandler {
  const read = bodyReader(spec);
  return (req, res, next) => {
    read(req, res).then((body) => {
      res.locals.body = body;
      next();
    }, next);
  };
}

function run(middleware: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    middleware(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
  });
}
