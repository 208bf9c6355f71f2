// One body, one answer: every request of the table goes through the public edge (public key) and
// through the management API (owner token and rtk_ key), and all three answer the same status,
// error code and field list. Both surfaces validate with the same compiled schema of the single
// route table (@lattice/http), then run the same realtime services.
import { expect } from 'chai';
import {
  type Answer,
  type Caller,
  callers,
  createRealtimeHttpBase,
  errorOf,
  publicKey,
  putNamespace,
  type RealtimeHttpBase,
} from './realtime-http/harness.ts';

type Request = (c: Caller) => Promise<Answer>;

const grant = { name: 'chat:room', ops: ['subscribe'] };
const token =
  (body: unknown): Request =>
  (c) =>
    c.issueToken(body);
const publish =
  (body: unknown): Request =>
  (c) =>
    c.publish(body);
const history =
  (channel: string, query: string): Request =>
  (c) =>
    c.history(channel, query);

/** [what, request, the status every surface answers]. Strings are sent as raw JSON text. */
const CASES: ReadonlyArray<[string, Request, number]> = [
  ['publish: name null', publish({ channel: 'chat:room', data: 1, name: null }), 400],
  ['publish: name a number', publish({ channel: 'chat:room', data: 1, name: 7 }), 400],
  ['publish: name empty', publish({ channel: 'chat:room', data: 1, name: '' }), 400],
  ['publish: name 128 characters', publish({ channel: 'chat:room', data: 1, name: 'n'.repeat(128) }), 202],
  ['publish: name 129 characters', publish({ channel: 'chat:room', data: 1, name: 'n'.repeat(129) }), 400],
  ['publish: data missing', publish({ channel: 'chat:room' }), 400],
  ['publish: data null', publish({ channel: 'chat:room', data: null }), 202],
  ['publish: an unknown field', publish({ channel: 'chat:room', data: 1, extra: true }), 400],
  ['publish: channel without namespace', publish({ channel: 'room', data: 1 }), 400],
  ['publish: channel of 128 characters', publish({ channel: `chat:${'a'.repeat(123)}`, data: 1 }), 202],
  ['publish: channel of 129 characters', publish({ channel: `chat:${'a'.repeat(124)}`, data: 1 }), 400],
  ['publish: channel with a space', publish({ channel: 'chat:a b', data: 1 }), 400],
  ['publish: channel with a star', publish({ channel: 'chat:*', data: 1 }), 400],
  ['publish: channel a number', publish({ channel: 12, data: 1 }), 400],
  ['publish: channel missing', publish({ data: 1 }), 400],
  ['publish: several fields wrong at once', publish({ channel: 'x', name: '', other: 1 }), 400],
  ['publish: array body', publish('[]'), 400],
  ['publish: string body', publish('"hello"'), 400],
  ['publish: number body', publish('42'), 400],
  ['publish: null body', publish('null'), 400],
  ['publish: boolean body', publish('true'), 400],
  ['publish: unregistered namespace', publish({ channel: 'nowhere:room', data: 1 }), 404],
  ['token: valid', token({ subject: 'ann', channels: [grant] }), 200],
  [
    'token: duplicate ops',
    token({ subject: 'ann', channels: [{ ...grant, ops: ['subscribe', 'subscribe'] }] }),
    400,
  ],
  ['token: unknown op', token({ subject: 'ann', channels: [{ ...grant, ops: ['admin'] }] }), 400],
  ['token: fractional ttlSeconds', token({ subject: 'ann', channels: [grant], ttlSeconds: 90.5 }), 400],
  ['token: string ttlSeconds', token({ subject: 'ann', channels: [grant], ttlSeconds: '90' }), 400],
  ['token: ttlSeconds 3601', token({ subject: 'ann', channels: [grant], ttlSeconds: 3601 }), 400],
  ['token: unknown top-level field', token({ subject: 'ann', channels: [grant], admin: true }), 400],
  ['token: unknown field in a channel', token({ subject: 'ann', channels: [{ ...grant, x: 1 }] }), 400],
  ['token: subject with a colon', token({ subject: 'ext:ann', channels: [grant] }), 400],
  ['token: channels empty', token({ subject: 'ann', channels: [] }), 400],
  [
    'token: channel without namespace',
    token({ subject: 'ann', channels: [{ ...grant, name: 'room' }] }),
    400,
  ],
  ['token: array body', token('[]'), 400],
  [
    'token: nothing left after narrowing',
    token({ subject: 'ann', channels: [{ ...grant, name: 'gone:a' }] }),
    422,
  ],
  ['history: half cursor', history('chat:room', 'offset=3'), 400],
  ['history: last_n 0', history('chat:room', 'last_n=0'), 400],
  ['history: last_n 1000', history('chat:room', 'last_n=1000'), 200],
  ['history: last_n 1001', history('chat:room', 'last_n=1001'), 400],
  ['history: last_n not a number', history('chat:room', 'last_n=ten'), 400],
  ['history: last_n twice', history('chat:room', 'last_n=1&last_n=2'), 400],
  ['history: an unknown parameter', history('chat:room', 'last_n=1&since=0'), 400],
  ['history: cursor and window', history('chat:room', 'offset=1&epoch=ab&last_n=1'), 400],
  ['history: channel without namespace', history('room', 'last_n=1'), 400],
];

function outcome(answer: Answer): { status: number; code?: string; fields?: unknown } {
  if (answer.status < 400) return { status: answer.status };
  const error = errorOf(answer);
  return { status: answer.status, code: error.code, fields: error.fields };
}

describe('one body, one answer on the edge and the management API', function () {
  this.timeout(120_000);
  let base: RealtimeHttpBase;
  let all: Caller[];

  before(async () => {
    base = await createRealtimeHttpBase('rt-parity');
    const stack = await base.startStack({ payloads: 'none' });
    const product = await base.newProduct(stack.management);
    all = callers(stack, product, await publicKey(stack, product));
    await putNamespace(stack, product, 'chat', { presence: true, history_window_seconds: 3600 });
  });
  after(async () => base?.close());

  for (const [what, request, status] of CASES) {
    it(`${what}: ${status} everywhere`, async () => {
      const [edge, ...management] = await Promise.all(all.map((c) => request(c)));
      const expected = outcome(edge!);
      expect(expected.status, JSON.stringify(edge!.body)).to.equal(status);
      if (status >= 400) expect(expected.code, what).to.be.a('string');
      for (const [i, answer] of management.entries()) {
        expect(outcome(answer), all[i + 1]!.name).to.deep.equal(expected);
      }
    });
  }
});
