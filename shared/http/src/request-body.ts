// Per-route JSON body handling. The cap is the route's own (exactly the cap passes, one byte
// more is 413); the parser is told nothing about other types, so non-JSON bodies are refused
// here with 415 instead of silently arriving as "no body".
import { ApiError } from '@lattice/core';
import express, { type Request, type RequestHandler } from 'express';
import { STEP } from './error-mapping.ts';
import { DEFAULT_BODY_LIMIT_BYTES, type RouteDef } from './route-def.ts';

const JSON_TYPES = ['application/json', 'application/*+json'];

/** A body is present when it is chunked or has a non-zero Content-Length. */
function hasBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

/** Sets `res.locals.body`: the parsed body, `{}` when none was sent, undefined for body-less routes. */
export function bodyMiddleware(route: RouteDef): RequestHandler {
  if (!route.request?.body) {
    return (req, _res, next) => {
      if (!hasBody(req)) return next();
      next(new ApiError(400, 'unexpected_body', STEP.bodyParsing, 'This operation takes no request body'));
    };
  }
  const limitBytes = route.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const parse = express.json({ limit: limitBytes, strict: false, inflate: false, type: () => true });
  return (req, res, next) => {
    if (!hasBody(req)) {
      // An absent body reads as {}: validation then names the missing fields, and operations
      // whose body is all optional need none.
      res.locals.body = {};
      return next();
    }
    if (!req.is(JSON_TYPES)) {
      return next(
        new ApiError(
          415,
          'unsupported_media_type',
          STEP.bodyParsing,
          'Request body must be application/json',
        ),
      );
    }
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      res.locals.body = (req.body as unknown) ?? {};
      next();
    });
  };
}
