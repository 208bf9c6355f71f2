// One HTTP attempt of a webhook delivery (spec "Delivery request", "Delivery semantics"): a POST
// over HTTPS to the address the target guard checked, within one time limit, whose outcome is
// the attempt's `response_status` and `last_error`. Retrying, signing and ordering are the
// endpoint actor's; this file never retries a delivery (one exception: a pooled connection the
// receiver had already closed, where nothing reached it).
import type { ClientRequest, IncomingMessage } from 'node:http';
import { Agent, type AgentOptions, type RequestOptions, request } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { createSecureContext, getCACertificates } from 'node:tls';
import { type Scheduler, systemScheduler } from '@lattice/core';
import { attemptErrorText } from './attempt-error.ts';
import { retryAfterMsOf } from './retry-after.ts';
import { bareHostOf, type ResolvedAddress, type TargetGuard } from './target-guard.ts';

export interface AttemptResult {
  /** A 2xx answer. */
  ok: boolean;
  /** The receiver's status, or null when it never answered (refused target, connection, timeout). */
  responseStatus: number | null;
  /** Why the attempt failed (`HTTP 401`, `connection refused`, …), null on success. */
  error: string | null;
  /** What a 429 or 503 asked for in Retry-After; null otherwise. */
  retryAfterMs: number | null;
  durationMs: number;
}

export interface WebhookRequester {
  post(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult>;
  /** Drops the pooled connections; posts after this fail without a request. */
  close(): void;
}

export interface WebhookRequesterOptions {
  guard: TargetGuard;
  /** WEBHOOK_TIMEOUT_MS: lookup, connect, TLS, sending and the answer's head, all together. */
  timeoutMs: number;
  /** How much of an answer's body is read (and discarded) before the connection is dropped. */
  responseCapBytes?: number;
  userAgent?: string;
  scheduler?: Scheduler;
  /** Connections at once to one target (host, port and checked address). Default 8. */
  maxSocketsPerTarget?: number;
  /** An idle pooled connection is closed after this long (or the receiver's Keep-Alive hint, less 1 s). */
  idleSocketTimeoutMs?: number;
}

const DEFAULT_RESPONSE_CAP_BYTES = 4096;
const DEFAULT_USER_AGENT = 'lattice-mail-webhooks/1';
const DEFAULT_MAX_SOCKETS_PER_TARGET = 8;
/** Under the 5 s keep-alive of Node, Apache and others that send no Keep-Alive hint. */
const DEFAULT_IDLE_SOCKET_TIMEOUT_MS = 4000;

/** The request option that carries the checked address into the pool key (see PinnedAgent). */
const PINNED_ADDRESS = 'latticePinnedAddress';

/**
 * Keep-alive pools sockets by host and port (and TLS options), not by the address connected to.
 * With the lookup pinned per request, a name whose address changed between two attempts would
 * otherwise be sent over the socket opened to the old address, which this attempt did not check.
 * Adding the checked address to the pool key keeps one agent (one limit, one TLS session cache)
 * while a pooled socket only serves attempts that checked the very address it is connected to.
 * (The alternative, an agent per address, needs its own eviction as addresses come and go.)
 */
class PinnedAgent extends Agent {
  override getName(options?: RequestOptions): string {
    const pinned = (options as Record<string, unknown> | undefined)?.[PINNED_ADDRESS];
    return `${super.getName(options)}|${typeof pinned === 'string' ? pinned : ''}`;
  }
}

/**
 * decisions.md: receivers' certificates are checked against the system's CAs plus
 * NODE_EXTRA_CA_CERTS (Node alone would use its bundled list instead of the system's). A system
 * without a CA store falls back to Node's default (bundled plus extra).
 */
function receiverCaCertificates(): string[] {
  const system = getCACertificates('system');
  if (system.length === 0) return getCACertificates('default');
  return [...new Set([...system, ...getCACertificates('extra')])];
}

/** A lookup that answers the checked address, whichever form Node asks in (`all` when it races families). */
function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

export function createWebhookRequester(opts: WebhookRequesterOptions): WebhookRequester {
  const scheduler = opts.scheduler ?? systemScheduler;
  const capBytes = opts.responseCapBytes ?? DEFAULT_RESPONSE_CAP_BYTES;
  const userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
  // No proxyEnv: a proxy would resolve the name itself and defeat the address check.
  const agentOptions: AgentOptions = {
    keepAlive: true,
    maxSockets: opts.maxSocketsPerTarget ?? DEFAULT_MAX_SOCKETS_PER_TARGET,
    timeout: opts.idleSocketTimeoutMs ?? DEFAULT_IDLE_SOCKET_TIMEOUT_MS,
    scheduling: 'lifo',
    // A secure context made once, not `ca`: the agent keys its pool by the options' text, and a
    // `ca` list of some 600 certificates made every request build a key of hundreds of KB.
    secureContext: createSecureContext({ ca: receiverCaCertificates() }),
  };
  const agent = new PinnedAgent(agentOptions);
  let closed = false;

  return {
    post(urlText, headers, body) {
      const startedMs = scheduler.nowMs();
      const result = (r: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({
        ...r,
        durationMs: scheduler.nowMs() - startedMs,
      });
      const failure = (error: string): AttemptResult =>
        result({ ok: false, responseStatus: null, error, retryAfterMs: null });
      if (closed) return Promise.resolve(failure('the webhook requester is closed'));
      let url: URL;
      try {
        url = new URL(urlText);
      } catch {
        return Promise.resolve(failure('not a valid URL'));
      }
      const bodyBytes = Buffer.from(body, 'utf8');
      const hostname = bareHostOf(url);

      return new Promise<AttemptResult>((resolve) => {
        let settled = false;
        let req: ClientRequest | undefined;
        /** The status once the answer's head arrived: from then on the attempt has an answer. */
        let answered: { status: number; retryAfterMs: number | null } | null = null;

        const finish = (r: AttemptResult) => {
          if (settled) return;
          settled = true;
          scheduler.clearTimer(timer);
          resolve(r);
        };
        const answeredResult = (a: { status: number; retryAfterMs: number | null }) => {
          const ok = a.status >= 200 && a.status < 300;
          return result({
            ok,
            responseStatus: a.status,
            error: ok ? null : `HTTP ${a.status}`,
            retryAfterMs: a.retryAfterMs,
          });
        };
        const timer = scheduler.setTimeout(() => {
          // Whatever is in flight stops here; a pooled socket mid-answer is not reused.
          req?.destroy();
          // An answer whose head came in time counts even if its body is still trickling in.
          finish(answered ? answeredResult(answered) : failure(`no answer within ${opts.timeoutMs} ms`));
        }, opts.timeoutMs);

        const send = (target: ResolvedAddress, mayRetryStaleSocket: boolean) => {
          if (settled) return;
          const options: RequestOptions & { [PINNED_ADDRESS]: string } = {
            agent,
            method: 'POST',
            host: hostname,
            port: url.port === '' ? 443 : Number(url.port),
            path: `${url.pathname}${url.search}`,
            headers: {
              ...headers,
              host: url.host,
              'content-type': 'application/json',
              'user-agent': userAgent,
              'content-length': String(bodyBytes.length),
            },
            // The host stays the URL's name, so SNI and the certificate check are about the name;
            // only the address comes from the check. (An IP host is connected to as is.)
            lookup: pinnedLookup(target),
            ...(isIP(hostname) === 0 ? { servername: hostname } : {}),
            insecureHTTPParser: false,
            // maxHeaderSize: Node's default (16 KiB); rejectUnauthorized: never touched.
            [PINNED_ADDRESS]: target.address,
          };
          let current: ClientRequest;
          try {
            current = request(options);
          } catch (err) {
            // A header value Node refuses to send, for one.
            return finish(failure(attemptErrorText(err)));
          }
          req = current;
          current.setNoDelay(true);
          current.on('response', (res: IncomingMessage) => {
            const status = res.statusCode ?? 0;
            const retryAfter = res.headers['retry-after'];
            answered = { status, retryAfterMs: retryAfterMsOf(status, retryAfter, scheduler.nowMs()) };
            const done = () => finish(answeredResult(answered!));
            let readBytes = 0;
            res.on('data', (chunk: Buffer) => {
              readBytes += chunk.length;
              if (readBytes <= capBytes) return;
              // Not worth reading: dropping the connection is cheaper than draining it.
              current.destroy();
              done();
            });
            res.on('end', done);
            res.on('close', done);
            res.on('error', done);
          });
          current.on('error', (err: NodeJS.ErrnoException) => {
            if (settled || answered) return;
            // A keep-alive socket the receiver closed while it sat in the pool fails at once: that
            // is the pool's race, not the receiver's answer, so a fresh connection gets one go.
            // (Had the receiver taken the request before resetting, at-least-once covers it.)
            const stale = err.code === 'ECONNRESET' || err.code === 'EPIPE';
            if (mayRetryStaleSocket && current.reusedSocket && stale) return send(target, false);
            finish(failure(attemptErrorText(err)));
          });
          current.end(bodyBytes);
        };

        opts.guard.resolveForAttempt(url).then(
          (target) => send(target, true),
          (err: unknown) => finish(failure(err instanceof Error ? err.message : String(err))),
        );
      });
    },

    close() {
      closed = true;
      agent.destroy();
    },
  };
}
