import { ApiError } from '@lattice/core';
import type { Principal, RouteDef } from '@lattice/http';
import { expect } from 'chai';
import { authorizeRoute, KEY_MANAGERS, SENDING_ACCESS } from './access-policy.ts';

const member = (role: Principal['role']): Principal => ({
  productId: 'p',
  credentialKind: 'member_token',
  credentialId: 't',
  memberId: 'm',
  role,
});
const areaKey = (area: string, keyScope?: string): Principal => ({
  productId: 'p',
  credentialKind: `${area}_key`,
  credentialId: 'k',
  memberId: null,
  role: null,
  area,
  ...(keyScope ? { keyScope } : {}),
});
const route = (area: string, operationId: string, access?: RouteDef['access']): RouteDef => ({
  method: 'GET',
  path: '/x',
  operationId,
  summary: 's',
  description: 'd',
  area,
  auth: 'management',
  ...(access ? { access } : {}),
  responses: { 200: 'health' },
  handler: () => ({ status: 200 }),
});

/** null when allowed, else [status, code, step]. */
function outcome(principal: Principal, r: RouteDef): [number, string, string | undefined] | null {
  try {
    authorizeRoute(principal, r);
    return null;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return [err.status, err.code, err.step];
  }
}

const RESTRICTED = [401, 'restricted_api_key', 'authorization'];
const FORBIDDEN = [403, 'forbidden', 'authorization'];
const managers = KEY_MANAGERS;

describe('management access policy', () => {
  it('lets member tokens reach every area, and only listed roles reach role-restricted routes', () => {
    for (const area of ['organization', 'mail', 'realtime', 'analytics']) {
      for (const role of ['owner', 'admin', 'member'] as const) {
        expect(outcome(member(role), route(area, 'op'))).to.equal(null);
      }
    }
    const create = route('organization', 'organization_public-keys_create', managers);
    expect(outcome(member('owner'), create)).to.equal(null);
    expect(outcome(member('admin'), create)).to.equal(null);
    expect(outcome(member('member'), create)).to.deep.equal(FORBIDDEN);
    expect(outcome(member(null), create)).to.deep.equal(FORBIDDEN);
  });

  it('keeps area keys inside their own area', () => {
    expect(outcome(areaKey('mail'), route('mail', 'mail_apikey_list'))).to.equal(null);
    expect(outcome(areaKey('realtime'), route('realtime', 'realtime_apikey_list'))).to.equal(null);
    expect(outcome(areaKey('mail'), route('realtime', 'realtime_apikey_list'))).to.deep.equal(RESTRICTED);
    expect(outcome(areaKey('realtime'), route('mail', 'mail_apikey_list'))).to.deep.equal(RESTRICTED);
    for (const key of [areaKey('mail'), areaKey('realtime')]) {
      expect(outcome(key, route('organization', 'organization_product_get'))).to.deep.equal(RESTRICTED);
      // A role-restricted route outside the area is restricted, not forbidden: keys have no role.
      expect(outcome(key, route('organization', 'organization_public-keys_create', managers))).to.deep.equal(
        RESTRICTED,
      );
    }
  });

  it('lets a narrowed key reach only the routes that name its scope', () => {
    const sending = areaKey('mail', 'sending_access');
    expect(outcome(sending, route('mail', 'mail_apikey_list'))).to.deep.equal(RESTRICTED);
    expect(outcome(sending, route('mail', 'mail_apikey_create'))).to.deep.equal(RESTRICTED);
    const send = route('mail', 'mail_email_send', SENDING_ACCESS);
    expect(outcome(sending, send)).to.equal(null);
    expect(outcome(areaKey('mail'), send)).to.equal(null);
    expect(outcome(member('member'), send)).to.equal(null);
    // Naming a scope does not open the route to another area's keys.
    expect(outcome(areaKey('realtime'), send)).to.deep.equal(RESTRICTED);
  });
});
