// Gateway metrics (prom-client), labelled with the environment: `lattice start` runs both
// gateways on one registry. Pushes are counted in plain numbers on the hot path and moved into
// the counter when scraped. Labels are bounded: environment, push kind, close code, auth reason.
import type { Environment } from '@lattice/core';
import { CLOSE_CODES } from '@lattice/realtime-protocol';
import { Counter, Gauge, type Registry } from 'prom-client';

export type PushKind = 'message' | 'event' | 'presence' | 'unsubscribed';

export interface GatewayStats {
  connections: number;
  subscriptions: number;
  /** Redis channels this gateway is subscribed to. */
  channels: number;
}

export interface GatewayMetrics {
  push(kind: PushKind): void;
  /** Messages not sent because their connection was closed as a slow consumer. */
  dropped(count: number): void;
  closed(code: number): void;
  authFailed(reason: string): void;
  watch(stats: () => GatewayStats): () => void;
}

interface Family {
  pushes: Counter<'environment' | 'push'>;
  drops: Counter<'environment'>;
  closes: Counter<'environment' | 'code'>;
  authFailures: Counter<'environment' | 'reason'>;
  watched: Map<Environment, () => GatewayStats>;
  flushers: Set<() => void>;
}

const families = new WeakMap<Registry, Family>();

/** The codes the gateway sends, and the RFC 6455 ones a peer or the network produces. */
const KNOWN_CLOSE_CODES: ReadonlySet<number> = new Set([
  ...Object.values(CLOSE_CODES),
  1000,
  1001,
  1002,
  1005,
  1006,
  1007,
  1008,
  1011,
]);

function familyOn(registry: Registry): Family {
  const existing = families.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const watched = new Map<Environment, () => GatewayStats>();
  const flushers = new Set<() => void>();
  const gauge = (name: string, help: string, field: keyof GatewayStats) =>
    new Gauge({
      name,
      help,
      labelNames: ['environment'],
      registers,
      collect() {
        this.reset();
        for (const [environment, stats] of watched) this.set({ environment }, stats()[field]);
      },
    });
  gauge('lattice_gateway_connections', 'Open WebSocket connections', 'connections');
  gauge('lattice_gateway_subscriptions', 'Channel subscriptions of open connections', 'subscriptions');
  gauge('lattice_gateway_channels', 'Channels the gateway receives from Redis pub/sub', 'channels');
  const family: Family = {
    pushes: new Counter({
      name: 'lattice_gateway_pushes_total',
      help: 'Pushes sent to clients, by kind',
      labelNames: ['environment', 'push'],
      registers,
      collect: () => {
        for (const flush of flushers) flush();
      },
    }),
    drops: new Counter({
      name: 'lattice_gateway_dropped_messages_total',
      help: 'Messages not delivered because their connection was closed as a slow consumer (4200)',
      labelNames: ['environment'],
      registers,
    }),
    closes: new Counter({
      name: 'lattice_gateway_closes_total',
      help: 'Connections closed, by close code (1006: dropped without a closing handshake)',
      labelNames: ['environment', 'code'],
      registers,
    }),
    authFailures: new Counter({
      name: 'lattice_gateway_auth_failures_total',
      help: 'Tokens refused, by reason',
      labelNames: ['environment', 'reason'],
      registers,
    }),
    watched,
    flushers,
  };
  families.set(registry, family);
  return family;
}

export function gatewayMetrics(registry: Registry, environment: Environment): GatewayMetrics {
  const f = familyOn(registry);
  const pending: Record<PushKind, number> = { message: 0, event: 0, presence: 0, unsubscribed: 0 };
  const flush = () => {
    for (const push of Object.keys(pending) as PushKind[]) {
      if (pending[push] > 0) f.pushes.inc({ environment, push }, pending[push]);
      pending[push] = 0;
    }
  };
  return {
    push(kind) {
      pending[kind] += 1;
    },
    dropped(count) {
      if (count > 0) f.drops.inc({ environment }, count);
    },
    closed(code) {
      // A peer's own close code (any of 3000-4999) would be an unbounded label.
      f.closes.inc({ environment, code: KNOWN_CLOSE_CODES.has(code) ? String(code) : 'other' });
    },
    authFailed(reason) {
      f.authFailures.inc({ environment, reason });
    },
    watch(stats) {
      f.watched.set(environment, stats);
      f.flushers.add(flush);
      return () => {
        flush();
        f.flushers.delete(flush);
        if (f.watched.get(environment) === stats) f.watched.delete(environment);
      };
    },
  };
}
