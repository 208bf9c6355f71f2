// Delegated token issuing for both HTTP surfaces (spec "Delegated token", "Authentication →
// Delegated tokens"): the request arrives validated by its schema; a channel named twice is
// refused (400 naming the second entry: the schema cannot say it); narrow every channel by its
// namespace policy (only removes), 422 when nothing is left, sign with the environment's active
// key, answer {token, gatewayUrl, expiresAt}. Policies are read fresh, so a namespace registered
// a moment ago is honoured at once.
import type { Clock, Environment } from '@lattice/core';
import { systemClock } from '@lattice/core';
import { HTTP_ERRORS } from '@lattice/http';
import { namespaceOf } from '../names.ts';
import type { NamespaceRepository } from '../namespace-repository.ts';
import { signRealtimeToken } from '../realtime-token.ts';
import type { SigningKeyStore } from '../signing-key-store.ts';
import { narrowGrants, repeatedChannel, type TokenRequestBody, tokenRequestOf } from '../token-request.ts';
import { REALTIME_ERRORS } from './realtime-errors.ts';

export interface IssuedToken {
  token: string;
  gatewayUrl: string;
  /** ISO 8601. */
  expiresAt: string;
}

export interface TokenIssuer {
  /** `body` as its schema validated it (without the management API's `environment`). */
  issue(input: { productId: string; environment: Environment; body: TokenRequestBody }): Promise<IssuedToken>;
}

export interface TokenIssuerDeps {
  namespaces: Pick<NamespaceRepository, 'policies'>;
  signingKeys: SigningKeyStore;
  /** config.gatewayUrls: where the browser connects, per environment. */
  gatewayUrls: Record<Environment, string>;
  clock?: Clock;
}

export function createTokenIssuer(deps: TokenIssuerDeps): TokenIssuer {
  const clock = deps.clock ?? systemClock;
  return {
    async issue({ productId, environment, body }) {
      const request = tokenRequestOf(body);
      const repeated = repeatedChannel(request.channels);
      if (repeated) {
        throw HTTP_ERRORS.validation([
          {
            path: `body.channels[${repeated.index}].name`,
            message: `names the channel of body.channels[${repeated.first}] again: each channel at most once, with all its ops`,
          },
        ]);
      }
      const policies = await deps.namespaces.policies(
        productId,
        request.channels.map((c) => namespaceOf(c.name)),
      );
      const grants = narrowGrants(request.channels, (ns) => policies.get(ns));
      if (grants.length === 0) throw REALTIME_ERRORS.noCapabilities();
      const key = await deps.signingKeys.active(environment);
      const { token, claims } = signRealtimeToken(
        {
          productId,
          environment,
          subject: request.subject,
          grants,
          ttlSeconds: request.ttlSeconds,
          nowMs: clock.nowMs(),
        },
        key,
      );
      return {
        token,
        gatewayUrl: deps.gatewayUrls[environment],
        expiresAt: new Date(claims.exp * 1000).toISOString(),
      };
    },
  };
}
