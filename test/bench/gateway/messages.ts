// What the gateway benchmark's processes say to each other over IPC: the runner (run.ts), one
// child per server (server-child.ts and a server file per variant), and the load-client workers
// (load-client.ts).
import type { LogLevel } from '../support/platform-log.ts';

/** The variants the runner knows; a variant whose server fails to start is skipped. */
export type VariantName = 'bare-ws' | 'socketio' | 'lattice';

export interface ServerArgs {
  variant: VariantName;
  redisUrl: string;
  /** A key prefix of the run's own (`lattice-bench:<id>:`), different for every variant. */
  redisKeyPrefix: string;
  /** The product id the fan-out channels are named with (bare-ws; lattice makes its own). */
  productId: string;
  databaseUrl: string;
  /**
   * Offer the HTTP publish hook (the latency phase, the publish-path shapes). The lattice variant
   * needs the full platform for it; bare-ws can offer a floor for reference (HTTP → Redis fan-out
   * → ws, no Kafka, no history).
   */
  publishHook: boolean;
  /** The Lattice processes' log level and the folder of their log files (support/platform-log.ts). */
  logLevel: LogLevel;
  logDir: string;
}

/** Where and how the runner publishes a variant's messages (feed.ts). */
export type FeedTarget =
  /** The Lattice fan-out encoding on `fanOutChannel(prefix, {productId, 'production', channel})`. */
  | { kind: 'lattice-fanout'; redisKeyPrefix: string; productId: string }
  /** The Socket.IO Redis emitter with this key (the adapter's channel prefix). */
  | { kind: 'socketio-emitter'; key: string };

/** How a load client connects and subscribes (connect.ts). */
export type ClientSetup =
  /**
   * Raw `ws`, JSON frames: `{"id":1,"action":"auth","token"}` first when a token is given, then
   * `{"id":n,"action":"subscribe","channel"}`, each waiting for its `{id, result}` reply; pushes
   * are `{"push":"message","channel","id","offset","epoch","data","published_at"}` texts.
   */
  | {
      protocol: 'ws-json';
      token?: string;
      /**
       * Where a client gets a token for its channel, as a browser asks its backend: POST
       * `{"channel"}`, answer `{"token"}` (delegated tokens name concrete channels).
       */
      tokenUrl?: string;
    }
  /** socket.io-client, websocket transport only; `subscribe` with an ack, pushes as `message` events. */
  | { protocol: 'socketio' };

/**
 * The HTTP publish hook: the public HTTP publish of the full platform. The runner POSTs
 * `{"channel", "data": {"t": <sent at, epoch ms>, "i"}}` to `publishUrl` with `headers` and
 * expects 2xx; the subscribers measure from `t` to the push.
 */
export interface PublishHook {
  publishUrl: string;
  headers: Record<string, string>;
}

export interface ServerReady {
  type: 'ready';
  pid: number;
  /** `ws://…` for ws-json clients, `http://…` for socket.io clients. */
  url: string;
  feed: FeedTarget;
  client: ClientSetup;
  /** Only a variant with the full platform behind it has one (lattice, or bare-ws's floor). */
  publish?: PublishHook;
  /** The process of the platform behind the hook (edge + actors), for its CPU time. */
  platformPid?: number;
  /** Channel name prefix the client setup's token grants (default `bench:`). */
  channelPrefix?: string;
}

export type ServerMessage =
  | ServerReady
  | { type: 'failed'; reason: string }
  | { type: 'cpu'; userUs: number; systemUs: number }
  | { type: 'memory'; raw: MemorySample; collected: MemorySample };

/** process.memoryUsage() of a server: `raw` as it is, `collected` right after a full collection. */
export interface MemorySample {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

export interface Assignment {
  channel: string;
  /** Connections this worker opens, each subscribed to `channel` only. */
  clients: number;
}

export type WorkerCommand =
  | {
      type: 'connect';
      url: string;
      setup: ClientSetup;
      assignments: Assignment[];
      /** Connections opening at once in this worker. */
      concurrency: number;
      /** Read `"t":` from each push's data and keep now − t (the latency phase). */
      measureLatency: boolean;
    }
  | { type: 'verify' }
  | { type: 'latencies' }
  | { type: 'close' };

/** Per channel, over this worker's subscribers of it. */
export interface ChannelCheck {
  channel: string;
  clients: number;
  /** Lowest and highest last offset seen by a subscriber. */
  minLast: number;
  maxLast: number;
  /** Offsets skipped, and offsets seen again or out of order, summed over the subscribers. */
  gaps: number;
  dups: number;
}

export type WorkerMessage =
  | { type: 'started'; pid: number }
  | { type: 'connected'; connections: number; ms: number }
  | { type: 'count'; delivered: number }
  | { type: 'verify'; channels: ChannelCheck[] }
  | { type: 'latencies'; ms: number[] }
  | { type: 'closed' }
  | { type: 'failed'; reason: string };
