// The per-variant connect step of a load client: open one connection, subscribe it to one
// channel, and hand every message push to `onPush` with the push's offset (and, in the latency
// phase, its data's `t`). One function per client protocol (messages.ts ClientSetup):
//   ws-json   raw `ws`: auth first when the variant gave a token, or a token endpoint that
//             mints one per channel (`{"id":1,"action":"auth",
//             "token"}`), then `{"id":2,"action":"subscribe","channel"}`, waiting for each
//             `{id, result}` reply (an `error` reply fails the connect). Pushes are read from the
//             frame's bytes (`"offset":` and `"t":`), not parsed whole: the clients are the
//             bottleneck on two cores, and this costs bare-ws and the gateway alike.
//   socketio  socket.io-client, websocket transport only, `emitWithAck('subscribe', channel)`.
import { io as ioClient } from 'socket.io-client';
import { WebSocket } from 'ws';
import type { ClientSetup } from './messages.ts';

export interface Connection {
  close(): void;
}

export type OnPush = (offset: number, sentAtMs: number) => void;

const OFFSET = Buffer.from('"offset":');
const SENT_AT = Buffer.from('"t":');
const PUSH_MESSAGE = Buffer.from('"push":"message"');

/** The non-negative number written at `at` in `bytes` (digits, optionally a fraction). */
function numberAt(bytes: Buffer, at: number): number {
  let end = at;
  while (end < bytes.length) {
    const c = bytes[end]!;
    if ((c < 48 || c > 57) && c !== 46) break;
    end++;
  }
  return Number(bytes.toString('latin1', at, end));
}

function offsetAt(bytes: Buffer, at: number): number {
  let n = 0;
  for (let i = at; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c < 48 || c > 57) break;
    n = n * 10 + (c - 48);
  }
  return n;
}

/** A token for `channel` from the variant's token endpoint (the integrator's backend). */
async function tokenFor(tokenUrl: string, channel: string): Promise<string> {
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ channel }),
  });
  if (!res.ok) throw new Error(`token for ${channel}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

async function connectWsJson(
  url: string,
  setup: Extract<ClientSetup, { protocol: 'ws-json' }>,
  channel: string,
  measureLatency: boolean,
  onPush: OnPush,
): Promise<Connection> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  let waiting: { id: number; resolve: (text: string) => void } | null = null;
  ws.on('message', (data: Buffer) => {
    if (waiting === null) {
      const at = data.indexOf(OFFSET);
      if (at < 0 || data.indexOf(PUSH_MESSAGE) < 0) return;
      let sentAtMs = Number.NaN;
      if (measureLatency) {
        const t = data.indexOf(SENT_AT);
        if (t >= 0) sentAtMs = numberAt(data, t + SENT_AT.length);
      }
      onPush(offsetAt(data, at + OFFSET.length), sentAtMs);
      return;
    }
    const text = data.toString();
    const reply = JSON.parse(text) as { id?: unknown };
    if (reply.id === waiting.id) waiting.resolve(text);
  });
  const request = (id: number, frame: Record<string, unknown>) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply to ${frame.action} in 30 s`)), 30_000);
      waiting = {
        id,
        resolve: (text) => {
          clearTimeout(timer);
          waiting = null;
          const reply = JSON.parse(text) as { error?: { code: string; message: string } };
          if (reply.error) reject(new Error(`${frame.action}: ${reply.error.code} ${reply.error.message}`));
          else resolve();
        },
      };
      ws.send(JSON.stringify({ id, ...frame }));
    });
  ws.once('close', (code) => {
    if (waiting !== null) waiting.resolve(JSON.stringify({ error: { code: 'closed', message: `${code}` } }));
  });
  const token = setup.tokenUrl !== undefined ? await tokenFor(setup.tokenUrl, channel) : setup.token;
  if (token !== undefined) await request(1, { action: 'auth', token });
  await request(2, { action: 'subscribe', channel });
  return { close: () => ws.terminate() };
}

async function connectSocketIo(
  url: string,
  channel: string,
  measureLatency: boolean,
  onPush: OnPush,
): Promise<Connection> {
  const socket = ioClient(url, { transports: ['websocket'], forceNew: true, reconnection: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('connect_error', reject);
  });
  socket.on('message', (push: { offset: number; data?: { t?: number } }) => {
    onPush(push.offset, measureLatency ? (push.data?.t ?? Number.NaN) : Number.NaN);
  });
  const answer = (await socket.timeout(30_000).emitWithAck('subscribe', channel)) as { ok?: boolean };
  if (answer?.ok !== true) throw new Error(`subscribe answered ${JSON.stringify(answer)}`);
  return { close: () => socket.disconnect() };
}

export function connect(
  url: string,
  setup: ClientSetup,
  channel: string,
  measureLatency: boolean,
  onPush: OnPush,
): Promise<Connection> {
  return setup.protocol === 'ws-json'
    ? connectWsJson(url, setup, channel, measureLatency, onPush)
    : connectSocketIo(url, channel, measureLatency, onPush);
}
