// The management API's refusals beyond authentication, in one place so codes, statuses and
// steps stay consistent across areas. Steps: `authorization` (the credential may not do this),
// `validation` (the request is wrong), `lookup` (nothing by that id), `state` (the resource is
// in a state that forbids the operation).
import { ApiError, type FieldError } from '@lattice/core';
import { HTTP_ERRORS, STEP } from '@lattice/http';

export const MANAGEMENT_STEP = {
  authorization: 'authorization',
  validation: STEP.validation,
  lookup: 'lookup',
  state: 'state',
} as const;

/** An area key used outside what it reaches (spec: `401 restricted_api_key`). */
export function restrictedApiKey(message: string): ApiError {
  return new ApiError(401, 'restricted_api_key', MANAGEMENT_STEP.authorization, message);
}

/** A member whose role may not use the operation. */
export function forbidden(roles: readonly string[]): ApiError {
  return new ApiError(
    403,
    'forbidden',
    MANAGEMENT_STEP.authorization,
    `Only a member with role ${roles.join(' or ')} may do this`,
  );
}

/** The router's own validation answer (HTTP_ERRORS), for checks JSON Schema cannot express. */
export const validationError: (fields: FieldError[]) => ApiError = HTTP_ERRORS.validation;

/** Unknown ids and ids of another product read alike. */
export function notFound(what: string): ApiError {
  return new ApiError(404, 'not_found', MANAGEMENT_STEP.lookup, `No ${what} with this id`);
}

export function publicKeyRevoked(): ApiError {
  return new ApiError(
    409,
    'public_key_revoked',
    MANAGEMENT_STEP.state,
    'The public key is revoked; revoking is permanent. Create a new key instead.',
  );
}

/** A member role refused an action on another member (docs/organization.md "Who may do what"). */
export function memberForbidden(message: string): ApiError {
  return new ApiError(403, 'forbidden', MANAGEMENT_STEP.authorization, message);
}

/** Demoting or removing the product's last owner. */
export function lastOwner(): ApiError {
  return new ApiError(
    409,
    'last_owner',
    MANAGEMENT_STEP.state,
    'A product keeps at least one owner: make another member an owner first',
  );
}
