// The gateway of one environment: an HTTP server whose upgrades become WebSocket connections
// (any path; no subprotocol; an Origin check only when origins are configured), a heartbeat of
// RFC 6455 pings, and a drain that sends 4100 to every connection before the process exits.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  createTurnBatcher,
  type Environment,
  type GatewayLimits,
  type HttpTimeouts,
  type Logger,
  type Scheduler,
  type Timer,
} from '@lattice/core';
import { createHttpServer } from '@lattice/http';
import { type ChannelCommandPublisher, type RealtimeHttp, realtimeStages } from '@lattice/realtime';
import { CLOSE_CODES } from '@lattice/realtime-protocol';
import { fanOutChannel } from '@lattice/redis';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import { type WebSocket, WebSocketServer } from 'ws';
import { createChannelHub } from './channel-hub.ts';
import { Connection } from './connection.ts';
import { createGatewayDemo, type GatewayDemoSettings } from './demo.ts';
import { gatewayMetrics } from './gateway-metrics.ts';
import { createPresenceCommands } from './presence-commands.ts';
import { createTokenSlots } from './token-slots.ts';

export interface GatewaySettings {
  environment: Environment;
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  limits: GatewayLimits;
  redisKeyPrefix: string;
  /** A close's handshake wait before the socket is dropped (decisions.md: 30 s). */
  closeHandshakeMs: number;
  /** How long a presence command waits for the channel actor's answer. */
  presenceTimeoutMs: number;
  /** How long the first frame may take (decisions.md: 10 s). */
  authTimeoutMs: number;
  /** HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS: slow (upgrade) requests are cut (http-server.ts). */
  httpTimeouts: HttpTimeouts;
  /** The local demo (`lattice start` only): the chat page and its backend for this product. */
  demo?: GatewayDemoSettings | null;
}

export interface GatewayDeps {
  /** A connection of its own, put in subscriber mode. */
  subscriber: Redis;
  /** Publishes client events. */
  publisher: Redis;
  realtime: RealtimeHttp;
  commands: ChannelCommandPublisher;
  scheduler: Scheduler;
  logger: Logger;
  registry: Registry;
  /** The browser client bundle, for the demo page. */
  bundle?: () => Promise<string>;
}

export interface RunningGateway {
  /** `ws://host:port` as bound. */
  url: string;
  port: number;
  gatewayId: string;
  connections(): number;
  /** Whether its fan-out subscriptions are in place (Redis connected, presence results subscribed). */
  healthy(): boolean;
  /** True from the start of close(): it refuses new connections and closes its own. */
  draining(): boolean;
  /** Drains: 4100 to every connection, waits for them (bounded), then stops. */
  close(): Promise<void>;
}

/** The JSON error body of every answer the gateway gives over plain HTTP (docs/realtime.md "The gateway"). */
function errorBody(code: string, message: string): string {
  return JSON.stringify({ error: { code, message, step: 'gateway' } });
}

function refuseUpgrade(socket: Duplex, status: string, code: string, message: string): void {
  const body = errorBody(code, message);
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

export async function startGateway(settings: GatewaySettings, deps: GatewayDeps): Promise<RunningGateway> {
  const { limits, environment } = settings;
  const { scheduler } = deps;
  const logger = deps.logger.child({ component: 'gateway', environment });
  const gatewayId = randomBytes(6).toString('hex');
  const metrics = gatewayMetrics(deps.registry, environment);
  const connections = new Set<Connection>();
  let nextConnection = 0;
  let draining = false;

  const presence = createPresenceCommands({
    commands: deps.commands,
    scheduler,
    logger,
    timeoutMs: settings.presenceTimeoutMs,
  });
  const hub = createChannelHub({
    subscriber: deps.subscriber,
    keyPrefix: settings.redisKeyPrefix,
    connectionIdPrefix: `${gatewayId}.`,
    onPresenceResult: (r) => presence.resolve(r),
    logger,
    stages: realtimeStages(deps.registry),
  });
  hub.onResync(() => {
    for (const c of connections) c.resync();
  });
  const stopWatching = metrics.watch(() => {
    let subscriptions = 0;
    for (const c of connections) subscriptions += c.subscriptionCount;
    return { connections: connections.size, subscriptions, channels: hub.channels() };
  });

  const tokenSlots = createTokenSlots({
    redis: deps.publisher,
    keyPrefix: `${settings.redisKeyPrefix}${environment}:`,
    max: limits.maxConnectionsPerToken,
    scheduler,
    logger,
  });

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.maxFrameBytes,
    perMessageDeflate: false,
    clientTracking: false,
    // No subprotocol is spoken: a client asking for one gets none.
    handleProtocols: () => false,
  });

  // Connections written to in this turn, flushed together once it is over: a Redis read that
  // carries several messages makes one write per socket, not one per message.
  const toFlush = createTurnBatcher<Connection>(
    (written) => {
      for (const c of written) c.flush();
    },
    // Every message of one Redis read is dispatched in one task: its end is the turn's end here.
    { boundary: 'microtask' },
  );

  function accept(socket: WebSocket): void {
    const connection: Connection = new Connection({
      id: `${gatewayId}.${(nextConnection++).toString(36)}`,
      socket,
      environment,
      gatewayId,
      limits: {
        sendBufferMaxBytes: limits.sendBufferMaxBytes,
        closeHandshakeMs: settings.closeHandshakeMs,
        authTimeoutMs: settings.authTimeoutMs,
      },
      hub,
      realtime: deps.realtime,
      presence,
      publishEvent: async (ref, text) => {
        await deps.publisher.publish(fanOutChannel(settings.redisKeyPrefix, ref), text);
      },
      tokenSlots,
      scheduler,
      metrics,
      logger,
      flushAfterTurn: (c) => toFlush.add(c),
      onClosed: (c) => {
        connections.delete(c);
        if (connections.size === 0) for (const waiter of idle.splice(0)) waiter();
      },
    });
    connections.add(connection);
  }
  const idle: Array<() => void> = [];

  const demo =
    settings.demo && deps.bundle
      ? createGatewayDemo(settings.demo, {
          environment,
          realtime: deps.realtime,
          bundle: deps.bundle,
          logger,
        })
      : null;
  const server: Server = createHttpServer(
    (req, res) => {
      const answered = demo ? demo(req, res) : Promise.resolve(false);
      answered.then(
        (done) => {
          if (done) return;
          res.writeHead(426, { 'content-type': 'application/json; charset=utf-8', upgrade: 'websocket' });
          res.end(
            errorBody('upgrade_required', 'This is the Lattice realtime gateway: connect with a WebSocket'),
          );
        },
        (err: unknown) => {
          logger.error({ err }, 'a demo request failed');
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
          res.end(errorBody('internal_error', 'The demo request failed'));
        },
      );
    },
    settings.httpTimeouts,
    logger,
  );
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node takes its own error listener off an upgraded socket: a peer's reset must not throw.
    socket.on('error', (err) => logger.debug({ err }, 'upgrade socket error'));
    if (draining)
      return refuseUpgrade(socket, '503 Service Unavailable', 'draining', 'The gateway is draining');
    const origin = req.headers.origin;
    if (
      limits.allowedOrigins.length > 0 &&
      (origin === undefined || !limits.allowedOrigins.includes(origin))
    ) {
      return refuseUpgrade(socket, '403 Forbidden', 'origin_not_allowed', 'This origin may not connect');
    }
    wss.handleUpgrade(req, socket, head, accept);
  });

  // Every period each connection is pinged; one that left two pings unanswered is dropped.
  const heartbeat: Timer = scheduler.setInterval(
    () => {
      for (const c of connections) {
        if (c.missedPongs >= 2) c.terminate();
        else c.ping();
      }
    },
    limits.pingIntervalMs,
    { unref: true },
  );

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  logger.info({ port, gatewayId }, 'gateway listening');

  return {
    url: `ws://${settings.host}:${port}`,
    port,
    gatewayId,
    connections: () => connections.size,
    healthy: () => hub.healthy(),
    draining: () => draining,
    async close() {
      if (draining) return;
      draining = true;
      scheduler.clearTimer(heartbeat);
      const allClosed = new Promise<void>((resolve) => {
        if (connections.size === 0) resolve();
        else idle.push(resolve);
      });
      // Each connection gets 4100 behind what is buffered for it, and is dropped only when its
      // closing handshake has not finished in 30 s (its own timer): so this wait is bounded.
      for (const c of connections) c.closeWith(CLOSE_CODES.draining, 'draining');
      await allClosed;
      // Every close has sent its presence leaves; they reach Kafka before the producer stops.
      await presence.flush();
      tokenSlots.close();
      stopWatching();
      await hub.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      logger.info({ gatewayId }, 'gateway drained and stopped');
    },
  };
}
