// Authorization of the management API, from what each route declares (RouteDef.access) and
// what the credential is:
//   member token (lmt_)  every area of its product; a route listing roles refuses other
//                        roles with 403 forbidden
//   area key (lmk_ rtk_) only routes of its own area, and a narrowed key (sending_access) only
//                        routes whose access.keyScopes name its scope; otherwise
//                        401 restricted_api_key
// Roles apply to members only: an area key never reaches a role-restricted route, because those
// are all outside the mail and realtime areas (public keys are organization operations).
import type { Principal, RouteAccess, RouteDef } from '@lattice/http';
import { forbidden, restrictedApiKey } from '../errors.ts';
import { invalidToken, missingToken } from './bearer-authenticator.ts';

/** Declared by exactly `mail_email_send` and `mail_email_get`: all a sending_access key reaches. */
export const SENDING_ACCESS: RouteAccess = { keyScopes: ['sending_access'] };

/** Declared by the operations that change public keys. */
export const KEY_MANAGERS: RouteAccess = { roles: ['owner', 'admin'] };

export function authorizeRoute(principal: Principal, route: RouteDef): void {
  if (principal.area !== undefined) {
    if (route.area !== principal.area) {
      throw restrictedApiKey(
        `A ${principal.area} key reaches only ${principal.area} operations, not ${route.operationId}`,
      );
    }
    if (principal.keyScope !== undefined && !route.access?.keyScopes?.includes(principal.keyScope)) {
      throw restrictedApiKey(`A ${principal.keyScope} key cannot call ${route.operationId}`);
    }
    return;
  }
  const roles = route.access?.roles;
  if (roles && (principal.role === null || !roles.includes(principal.role))) throw forbidden(roles);
}

/**
 * The route with the refusals of authentication and of this policy added to its declared error
 * answers (RouteDef.errors), so the document lists them and the router accepts them.
 */
export function withAccessErrors(route: RouteDef): RouteDef {
  if (route.auth !== 'management') return route;
  const roles = route.access?.roles;
  return {
    ...route,
    errors: [
      missingToken(),
      invalidToken(),
      restrictedApiKey(`A mail key reaches only mail operations, not ${route.operationId}`),
      ...(roles ? [forbidden(roles)] : []),
      ...(route.errors ?? []),
    ],
  };
}
