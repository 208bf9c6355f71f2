// The error answers an operation can give: the generic ones its shape implies (HTTP_ERRORS: a
// body can be malformed or too large, a credential store can be down) plus the refusals it
// declares itself (RouteDef.errors, built by its area's error factories so code, step and
// message are the real ones). The OpenAPI document lists exactly these, with their bodies as
// examples; the router, when it checks answers (tests), refuses to send any other, so the list
// cannot fall behind the code.
import type { ApiError } from '@lattice/core';
import { HTTP_ERRORS } from './http-errors.ts';
import { DEFAULT_BODY_LIMIT_BYTES, type RouteDef } from './route-def.ts';

/** Every error answer of the route: generic ones first, then its own, one per status/code/step. */
export function errorAnswersOf(route: RouteDef): ApiError[] {
  // Every route validates its query (an unknown parameter is refused) and caps a body, even a
  // route that takes none (request-body.ts).
  const generic: ApiError[] = [
    HTTP_ERRORS.badRequest(),
    HTTP_ERRORS.validation([exampleField(route)]),
    HTTP_ERRORS.incompleteBody(),
    HTTP_ERRORS.payloadTooLarge(route.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES),
    HTTP_ERRORS.unsupportedContentEncoding(),
  ];
  if (route.request?.body !== undefined) {
    generic.push(HTTP_ERRORS.invalidJson(), HTTP_ERRORS.unsupportedMediaType());
  } else {
    generic.push(HTTP_ERRORS.unexpectedBody());
  }
  if (route.auth !== 'none')
    generic.push(HTTP_ERRORS.credentialsUnavailable(undefined), HTTP_ERRORS.secretsUnavailable());
  generic.push(HTTP_ERRORS.internal());
  return uniqueAnswers([...generic, ...(route.errors ?? [])]);
}

/** Whether `err` is one of the route's error answers (same status, code and step). */
export function isDeclaredAnswer(route: RouteDef, err: ApiError): boolean {
  return errorAnswersOf(route).some((e) => answerKey(e) === answerKey(err));
}

/** The route's error answers grouped by status, ascending. */
export function errorAnswersByStatus(route: RouteDef): Array<[number, ApiError[]]> {
  const byStatus = new Map<number, ApiError[]>();
  for (const err of errorAnswersOf(route)) {
    const list = byStatus.get(err.status) ?? [];
    list.push(err);
    byStatus.set(err.status, list);
  }
  return [...byStatus.entries()].sort(([a], [b]) => a - b);
}

function answerKey(err: ApiError): string {
  return `${err.status} ${err.code} ${err.step ?? ''}`;
}

function uniqueAnswers(errors: readonly ApiError[]): ApiError[] {
  const seen = new Map<string, ApiError>();
  for (const e of errors) if (!seen.has(answerKey(e))) seen.set(answerKey(e), e);
  return [...seen.values()];
}

/** A plausible `fields` entry for the validation example: the part of the request it checks. */
function exampleField(route: RouteDef): { path: string; message: string } {
  if (route.request?.body) return { path: 'body', message: 'must be object' };
  if (route.request?.query) return { path: 'query.limit', message: 'must be <= 100' };
  return { path: 'query.expand', message: 'is not allowed' };
}
