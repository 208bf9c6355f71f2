// Integration harness of the gateway: real Kafka, Redis and PostgreSQL; the actors role in this
// process (from the realtime HTTP harness); gateways started through their role module over
// shared resources of their own (createRoleShared, as `lattice start` builds them), optionally
// on a ManualScheduler so the protocol's timers (auth timeout, token expiry, heartbeats) move only
// when a test says. Products, namespaces, tokens and publishes go through the realtime services
// the edges serve (the same code as the HTTP routes).
import { createRoleShared, type RoleShared } from '@lattice/cli';
import {
  type Environment,
  type GatewayLimits,
  type LatticeConfig,
  type Scheduler,
  sleep,
} from '@lattice/core';
import { uniqueName } from '@lattice/core/testing';
import { type GatewaySettings, gatewayRole, type RunningGatewayRole } from '@lattice/gateway';
import type { NamespacePolicy, RealtimeHttp } from '@lattice/realtime';
import { bootstrapProduct } from '@lattice/store';
import { Registry } from 'prom-client';
import { createRealtimeHttpBase, type RealtimeHttpBase } from '../realtime-http/harness.ts';

export type Op = 'subscribe' | 'publish' | 'presence' | 'history';

export interface GatewayOptions {
  environment?: Environment;
  scheduler?: Scheduler;
  limits?: Partial<GatewayLimits>;
  settings?: Partial<Omit<GatewaySettings, 'limits'>>;
  registry?: Registry;
  /** Changes to the deployment's configuration for this gateway's process (a Redis behind a proxy). */
  config?: Partial<LatticeConfig>;
}

export interface TestGateway {
  /** The options it was started with, its port included: start it again where it was. */
  settings: GatewayOptions;
  gateway: RunningGatewayRole;
  url: string;
  shared: RoleShared;
  registry: Registry;
  realtime: RealtimeHttp;
  close(): Promise<void>;
}

export interface TestProduct {
  productId: string;
  /** A delegated token as the token route mints it. */
  token(
    subject: string,
    channels: Array<{ name: string; ops: Op[] }>,
    opts?: { environment?: Environment; ttlSeconds?: number },
  ): Promise<string>;
  /** Publishes as the HTTP route does; resolves with the message id once durable in Kafka. */
  publish(channel: string, data: unknown, environment?: Environment): Promise<string>;
  /** Waits until the channel actor applied the channel's messages up to `offset`. */
  applied(channel: string, offset: number): Promise<{ epoch: string; top: number }>;
}

export const ALL_OPS: Op[] = ['subscribe', 'publish', 'presence', 'history'];

export interface GatewayBase {
  base: RealtimeHttpBase;
  startGateway(opts?: GatewayOptions): Promise<TestGateway>;
  /** A product with namespaces (default policy: everything on, an hour of history). */
  newProduct(namespaces: Record<string, Partial<NamespacePolicy>>): Promise<TestProduct>;
  close(): Promise<void>;
}

export async function createGatewayBase(label: string): Promise<GatewayBase> {
  const base = await createRealtimeHttpBase(label);
  const gateways: TestGateway[] = [];
  // The services products are made with (tokens, namespaces, publishes). The publish quota is
  // out of the way: these tests publish thousands of messages in seconds.
  const services = createRoleShared({
    config: base.config,
    logger: base.logger,
    registry: new Registry(),
    db: base.db,
    realtime: {
      policyCacheTtlMs: 0,
      quota: { sustainedPerSecond: 1e9, windowMs: 10_000, burstPerWindow: 0, hardLimitPerWindow: 1e9 },
    },
  });
  const realtime = services.realtime();

  async function startGateway(opts: GatewayOptions = {}): Promise<TestGateway> {
    const registry = opts.registry ?? new Registry();
    const shared = createRoleShared({
      config: { ...base.config, ...opts.config },
      logger: base.logger,
      registry,
      db: base.db,
      realtime: { policyCacheTtlMs: 0 },
      ...(opts.scheduler ? { scheduler: opts.scheduler } : {}),
    });
    const role = gatewayRole(opts.environment ?? 'production');
    const settings = role.configOf(base.config);
    const gateway = await role.start(
      { ...settings, port: 0, ...opts.settings, limits: { ...settings.limits, ...opts.limits } },
      shared,
    );
    let closed = false;
    const running: TestGateway = {
      settings: { ...opts, settings: { ...opts.settings, port: gateway.port } },
      gateway,
      url: gateway.url,
      shared,
      registry,
      realtime: shared.realtime(),
      async close() {
        if (closed) return;
        closed = true;
        await gateway.close();
        await shared.close();
      },
    };
    gateways.push(running);
    return running;
  }

  return {
    base,
    startGateway,
    async newProduct(namespaces) {
      const boot = await bootstrapProduct(base.db, { name: uniqueName(label) });
      for (const [name, policy] of Object.entries(namespaces)) {
        await realtime.namespaces.put(boot.product_id, name, {
          presence: true,
          clientEvents: true,
          historyWindowSeconds: 3600,
          archiveDays: 0,
          ...policy,
        });
      }
      return {
        productId: boot.product_id,
        async token(subject, channels, opts = {}) {
          const issued = await realtime.tokens.issue({
            productId: boot.product_id,
            environment: opts.environment ?? 'production',
            body: { subject, channels, ttlSeconds: opts.ttlSeconds ?? 3600 },
          });
          return issued.token;
        },
        async publish(channel, data, environment = 'production') {
          const answer = await realtime.messages.publish({
            productId: boot.product_id,
            environment,
            body: { channel, data },
          });
          return answer.body.id;
        },
        async applied(channel, offset) {
          const deadline = Date.now() + 20_000;
          for (;;) {
            const read = await realtime.reads.history({
              productId: boot.product_id,
              environment: 'production',
              channel,
              query: { last_n: 1 },
            });
            if (read.top_offset >= offset) return { epoch: read.epoch, top: read.top_offset };
            if (Date.now() > deadline) throw new Error(`${channel} never reached offset ${offset}`);
            await sleep(25);
          }
        },
      };
    },
    async close() {
      for (const g of gateways.splice(0)) await g.close();
      await services.close();
      await base.close();
    },
  };
}
