import { expect } from 'chai';
import type { FanOutMessage, PresenceResult } from '../fanout/fanout.ts';
import {
  PRESENCE_INFO_MAX_BYTES,
  PRESENCE_MAX_MEMBERS,
  PRESENCE_TTL_MAX_SECONDS,
} from '../presence/presence-rules.ts';
import type { NamespacePolicy } from '../token-request.ts';
import type { ChannelCommand } from './channel-command.ts';
import { type ChannelEffect, type DecideContext, decideChannel } from './channel-logic.ts';
import { type ChannelState, RECENT_MESSAGE_IDS_MAX } from './channel-state.ts';

const RETAINING: NamespacePolicy = {
  presence: true,
  clientEvents: false,
  historyWindowSeconds: 3600,
  archiveDays: 0,
};
const ctx = (over: Partial<DecideContext> = {}): DecideContext => ({
  channel: 'chat:room',
  nowMs: 1_000_000,
  policy: RETAINING,
  freshEpoch: 'epoch-a',
  ...over,
});

let seq = 0;
const publish = (messageId = `m-${++seq}`, json = '{"n":1}'): ChannelCommand => ({
  kind: 'publish',
  commandId: `c-${messageId}`,
  messageId,
  name: null,
  payload: { kind: 'data', json },
  issuedAtMs: 999_000,
});
const enter = (connectionId: string, identity: string, over: Partial<ChannelCommand> = {}): ChannelCommand =>
  ({
    kind: 'presence_enter',
    commandId: `enter-${connectionId}`,
    connectionId,
    identity,
    infoJson: null,
    ttlSeconds: 60,
    gatewayId: 'gw-1',
    keepAlive: false,
    ...over,
  }) as ChannelCommand;
const update = (connectionId: string, infoJson: string | null): ChannelCommand => ({
  kind: 'presence_update',
  commandId: `update-${connectionId}`,
  connectionId,
  infoJson,
});
const leave = (connectionId: string, reason = 'client'): ChannelCommand => ({
  kind: 'presence_leave',
  commandId: `leave-${connectionId}`,
  connectionId,
  reason,
});

/** Applies commands one after another, collecting every effect. */
function run(
  commands: ChannelCommand[],
  start: ChannelState | null = null,
  c: DecideContext = ctx(),
): { state: ChannelState | null; effects: ChannelEffect[] } {
  let state = start;
  const effects: ChannelEffect[] = [];
  for (const cmd of commands) {
    const d = decideChannel(state, cmd, c);
    state = d.state;
    effects.push(...d.effects);
  }
  return { state, effects };
}

const results = (effects: ChannelEffect[]): PresenceResult[] =>
  effects.flatMap((e) => (e.type === 'presence_result' ? [e.result] : []));
const events = (effects: ChannelEffect[]) =>
  effects.flatMap((e) =>
    e.type === 'fan_out' && e.message.type === 'presence'
      ? [[e.message.action, e.message.identity, e.message.connections] as const]
      : [],
  );
const publications = (effects: ChannelEffect[]) =>
  effects.flatMap((e) =>
    e.type === 'fan_out' && e.message.type === 'publication'
      ? [(e.message as FanOutMessage & { type: 'publication' }).entry]
      : [],
  );
const lastError = (effects: ChannelEffect[]) => results(effects).at(-1)?.error?.code;

describe('channel logic: publishes', () => {
  it('creates the state with the fresh epoch on the first command and starts offsets at 1', () => {
    const { state, effects } = run([publish('first')]);
    expect(state?.epoch).to.equal('epoch-a');
    expect(state?.topOffset).to.equal(1);
    const [entry] = publications(effects);
    expect(entry).to.include({ id: 'first', offset: 1, epoch: 'epoch-a', publishedAtMs: 999_000 });
  });

  it('assigns dense offsets and keeps the epoch of an existing state', () => {
    const first = run([publish()]).state;
    const { state, effects } = run(
      Array.from({ length: 5 }, () => publish()),
      first,
      ctx({ freshEpoch: 'never-used' }),
    );
    expect(publications(effects).map((e) => [e.offset, e.epoch])).to.deep.equal([
      [2, 'epoch-a'],
      [3, 'epoch-a'],
      [4, 'epoch-a'],
      [5, 'epoch-a'],
      [6, 'epoch-a'],
    ]);
    expect(state?.topOffset).to.equal(6);
  });

  it('keeps history and fans out in that order when the namespace retains', () => {
    const { effects } = run([publish('a')]);
    expect(effects.map((e) => e.type)).to.deep.equal(['append_history', 'fan_out']);
  });

  it('with history window 0 retains nothing but still assigns offsets and fans out', () => {
    const policy = { ...RETAINING, historyWindowSeconds: 0 };
    const { state, effects } = run([publish(), publish()], null, ctx({ policy }));
    expect(effects.some((e) => e.type === 'append_history')).to.equal(false);
    expect(publications(effects).map((e) => e.offset)).to.deep.equal([1, 2]);
    expect(state?.topOffset).to.equal(2);
  });

  it('refuses a publish to an unregistered namespace without consuming an offset', () => {
    const first = run([publish()]).state;
    const refused = decideChannel(first, publish('lost'), ctx({ policy: null }));
    expect(refused.state).to.equal(first);
    expect(refused.effects.map((e) => e.type)).to.deep.equal(['publish_refused']);
    expect(decideChannel(null, publish(), ctx({ policy: null })).state).to.equal(null);
    expect(publications(run([publish()], first).effects)[0]?.offset).to.equal(2);
  });

  it('drops a repeated message id (a retried send) and forgets ids beyond the recent window', () => {
    const { state, effects } = run([publish('dup'), publish('dup')]);
    expect(publications(effects)).to.have.length(1);
    expect(effects.at(-1)?.type).to.equal('publish_duplicate');
    expect(state?.topOffset).to.equal(1);
    const fillers = Array.from({ length: RECENT_MESSAGE_IDS_MAX - 1 }, () => publish());
    const stillRemembered = run([...fillers, publish('dup')], state);
    expect(stillRemembered.effects.at(-1)?.type, 'the id is among the latest 128').to.equal(
      'publish_duplicate',
    );
    const pushedOut = run([publish(), publish('dup')], stillRemembered.state);
    expect(publications(pushedOut.effects).map((e) => e.id)).to.include('dup');
    expect(pushedOut.state?.recentMessageIds).to.have.length(RECENT_MESSAGE_IDS_MAX);
  });

  it('carries a ref payload and the name through', () => {
    const cmd: ChannelCommand = {
      ...(publish('r') as Extract<ChannelCommand, { kind: 'publish' }>),
      name: 'big',
      payload: { kind: 'ref', ref: { bucket_key: 'p/k', size: 300_000 } },
    };
    const [entry] = publications(run([cmd]).effects);
    expect(entry).to.deep.include({
      name: 'big',
      payload: { kind: 'ref', ref: { bucket_key: 'p/k', size: 300_000 } },
    });
  });
});

describe('channel logic: presence', () => {
  it('deduplicates by identity and counts connections (join, update, update, leave)', () => {
    const { state, effects } = run([
      enter('c1', 'ext:ann'),
      enter('c2', 'ext:ann'),
      leave('c1'),
      leave('c2'),
    ]);
    expect(events(effects)).to.deep.equal([
      ['join', 'ext:ann', 1],
      ['update', 'ext:ann', 2],
      ['update', 'ext:ann', 1],
      ['leave', 'ext:ann', 0],
    ]);
    expect(results(effects).every((r) => r.error === undefined)).to.equal(true);
    expect(state?.connections.size).to.equal(0);
  });

  it('admits the 100th member and refuses the 101st with `full`, leaving the state unchanged', () => {
    const ninetyNine = run(
      Array.from({ length: PRESENCE_MAX_MEMBERS - 1 }, (_, i) => enter(`c${i}`, `id-${i}`)),
    );
    const hundredth = decideChannel(ninetyNine.state, enter('c99', 'id-99'), ctx());
    expect(lastError(hundredth.effects)).to.equal(undefined);
    const full = decideChannel(hundredth.state, enter('c100', 'id-100'), ctx());
    expect(lastError(full.effects)).to.equal('full');
    expect(full.state).to.equal(hundredth.state);
    expect(full.effects.some((e) => e.type === 'fan_out')).to.equal(false);
    // A member already in the roster may add a connection to a full roster.
    const another = decideChannel(hundredth.state, enter('c-extra', 'id-5'), ctx());
    expect(lastError(another.effects)).to.equal(undefined);
    expect(events(another.effects)).to.deep.equal([['update', 'id-5', 2]]);
    // Once someone leaves, the next identity gets in.
    const freed = run([leave('c3'), enter('c100', 'id-100')], hundredth.state);
    expect(lastError(freed.effects)).to.equal(undefined);
  });

  it('accepts info of exactly 10 240 bytes and refuses 10 241 (counted in UTF-8 bytes)', () => {
    const json = (bytes: number) => `"${'a'.repeat(bytes - 2)}"`;
    expect(Buffer.byteLength(json(PRESENCE_INFO_MAX_BYTES))).to.equal(10_240);
    expect(
      lastError(run([enter('c', 'i', { infoJson: json(10_240) } as Partial<ChannelCommand>)]).effects),
    ).to.equal(undefined);
    const over = run([enter('c', 'i', { infoJson: json(10_241) } as Partial<ChannelCommand>)]);
    expect(lastError(over.effects)).to.equal('invalid');
    expect(over.state).to.equal(null);
    // 5 120 two-byte characters are 10 240 bytes: fine; one more byte is not.
    const wide = `"${'é'.repeat(5119)}"`;
    expect(Buffer.byteLength(wide)).to.equal(10_240);
    expect(lastError(run([enter('c', 'i', { infoJson: wide } as Partial<ChannelCommand>)]).effects)).to.equal(
      undefined,
    );
    expect(
      lastError(
        run([enter('c', 'i', { infoJson: `"${'é'.repeat(5119)}a"` } as Partial<ChannelCommand>)]).effects,
      ),
    ).to.equal('invalid');
    // The same bound on update.
    const entered = run([enter('c', 'i')]).state;
    expect(lastError(run([update('c', json(10_240))], entered).effects)).to.equal(undefined);
    expect(lastError(run([update('c', json(10_241))], entered).effects)).to.equal('invalid');
  });

  it('refuses info that is not JSON', () => {
    expect(
      lastError(run([enter('c', 'i', { infoJson: '{nope' } as Partial<ChannelCommand>)]).effects),
    ).to.equal('invalid');
  });

  it('accepts lifetimes of 1 and 3600 seconds and refuses 0, 3601 and fractions', () => {
    for (const ttlSeconds of [1, PRESENCE_TTL_MAX_SECONDS]) {
      expect(
        lastError(run([enter('c', 'i', { ttlSeconds } as Partial<ChannelCommand>)]).effects),
        String(ttlSeconds),
      ).to.equal(undefined);
    }
    for (const ttlSeconds of [0, 3601, 1.5, -1]) {
      expect(
        lastError(run([enter('c', 'i', { ttlSeconds } as Partial<ChannelCommand>)]).effects),
        String(ttlSeconds),
      ).to.equal('invalid');
    }
    const oneSecond = run([enter('c', 'i', { ttlSeconds: 1 } as Partial<ChannelCommand>)]).state;
    expect(oneSecond?.connections.get('c')?.expiresAtMs).to.equal(1_001_000);
  });

  it('refuses an update from a connection not in the roster with `invalid`', () => {
    const { effects } = run([enter('c1', 'ann'), update('c2', '{"x":1}')]);
    expect(results(effects).map((r) => [r.action, r.error?.code])).to.deep.equal([
      ['enter', undefined],
      ['update', 'invalid'],
    ]);
    expect(lastError(run([update('c2', null)]).effects)).to.equal('invalid');
  });

  it('applies an update to the member: every connection of the identity carries the new info', () => {
    const { state, effects } = run([enter('c1', 'ann'), enter('c2', 'ann'), update('c1', '{"mood":"ok"}')]);
    expect([...state!.connections.values()].map((c) => c.infoJson)).to.deep.equal([
      '{"mood":"ok"}',
      '{"mood":"ok"}',
    ]);
    expect(events(effects).at(-1)).to.deep.equal(['update', 'ann', 2]);
    // The same info again changes nothing and announces nothing.
    const same = decideChannel(state, update('c2', '{"mood":"ok"}'), ctx());
    expect(same.state).to.equal(state);
    expect(events(same.effects)).to.deep.equal([]);
  });

  it('refuses a connection entering as a second identity', () => {
    expect(lastError(run([enter('c1', 'ann'), enter('c1', 'bob')]).effects)).to.equal('invalid');
  });

  it('refreshes an entry on re-enter without announcing it', () => {
    const first = run([enter('c1', 'ann')]).state;
    const later = decideChannel(first, enter('c1', 'ann'), ctx({ nowMs: 1_030_000 }));
    expect(later.state?.connections.get('c1')?.expiresAtMs).to.equal(1_090_000);
    expect(events(later.effects)).to.deep.equal([]);
  });

  it("keeps an entry alive without touching its member's info, and re-enters one that is gone", () => {
    const keepAlive = { keepAlive: true, infoJson: '{"stale":true}' } as Partial<ChannelCommand>;
    // c2 changed the member's info after c1's gateway last sent it: c1's keep-alive keeps it.
    const { state } = run([enter('c1', 'ann'), enter('c2', 'ann'), update('c2', '{"fresh":true}')]);
    const later = decideChannel(state, enter('c1', 'ann', keepAlive), ctx({ nowMs: 1_030_000 }));
    expect(later.state?.connections.get('c1')).to.include({
      expiresAtMs: 1_090_000,
      infoJson: '{"fresh":true}',
    });
    expect(events(later.effects)).to.deep.equal([]);
    expect(results(later.effects), 'nobody waits for its answer').to.deep.equal([]);
    // After the entry expired, the keep-alive enters it again as given (the connection lives).
    const gone = decideChannel(state, enter('c3', 'bob', keepAlive), ctx({ nowMs: 1_030_000 }));
    expect(gone.state?.connections.get('c3')?.infoJson).to.equal('{"stale":true}');
    expect(events(gone.effects)).to.deep.equal([['join', 'bob', 1]]);
  });

  it('drops expired entries before the next command: leave for the last connection, update otherwise', () => {
    const start = run([
      enter('short', 'ann', { ttlSeconds: 1 } as Partial<ChannelCommand>),
      enter('long', 'ann', { ttlSeconds: 60 } as Partial<ChannelCommand>),
      enter('bob-1', 'bob', { ttlSeconds: 2 } as Partial<ChannelCommand>),
    ]).state;
    const justBefore = decideChannel(start, publish(), ctx({ nowMs: 1_000_999 }));
    expect(justBefore.state?.connections.size).to.equal(3);
    const atExpiry = decideChannel(start, publish(), ctx({ nowMs: 1_001_000 }));
    expect(events(atExpiry.effects)).to.deep.equal([['update', 'ann', 1]]);
    const later = decideChannel(atExpiry.state, publish(), ctx({ nowMs: 1_002_000 }));
    const leaveEvent = later.effects.find((e) => e.type === 'fan_out' && e.message.type === 'presence');
    expect(leaveEvent).to.deep.include({
      message: {
        type: 'presence',
        channel: 'chat:room',
        action: 'leave',
        identity: 'bob',
        connections: 0,
        infoJson: null,
        reason: 'expired',
      },
    });
    expect([...later.state!.connections.keys()]).to.deep.equal(['long']);
  });

  it("treats a sweep's `expired` leave as a wake-up: a refreshed entry stays, an expired one goes", () => {
    const start = run([enter('c1', 'ann', { ttlSeconds: 1 } as Partial<ChannelCommand>)]).state;
    const refreshed = decideChannel(start, leave('c1', 'expired'), ctx({ nowMs: 1_000_500 }));
    expect(refreshed.state).to.equal(start);
    expect(refreshed.effects).to.deep.equal([]);
    const expired = decideChannel(start, leave('c1', 'expired'), ctx({ nowMs: 1_001_000 }));
    expect(events(expired.effects)).to.deep.equal([['leave', 'ann', 0]]);
    expect(results(expired.effects), 'nobody waits for a sweep result').to.deep.equal([]);
  });

  it('refuses enter and update with `forbidden` when presence is off or the namespace is gone; leave still works', () => {
    const entered = run([enter('c1', 'ann')]).state;
    for (const policy of [{ ...RETAINING, presence: false }, null]) {
      expect(lastError(run([enter('c2', 'bob')], entered, ctx({ policy })).effects)).to.equal('forbidden');
      expect(lastError(run([update('c1', '{}')], entered, ctx({ policy })).effects)).to.equal('forbidden');
      const left = run([leave('c1')], entered, ctx({ policy }));
      expect(lastError(left.effects)).to.equal(undefined);
      expect(left.state?.connections.size).to.equal(0);
    }
  });

  it('answers a leave of an unknown connection with success and no event', () => {
    const { state, effects } = run([leave('ghost')]);
    expect(state).to.equal(null);
    expect(events(effects)).to.deep.equal([]);
    expect(results(effects)).to.deep.equal([
      { commandId: 'leave-ghost', channel: 'chat:room', connectionId: 'ghost', action: 'leave' },
    ]);
  });

  it('presence creates the state (with an epoch) but assigns no offset', () => {
    const { state } = run([enter('c1', 'ann')]);
    expect(state).to.include({ epoch: 'epoch-a', topOffset: 0 });
  });
});
