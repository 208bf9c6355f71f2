import { expect } from 'chai';
import { type ClientFrameParse, parseClientFrame, validateClientFrame } from './client-frame-parser.ts';
import { CLIENT_ACTIONS } from './client-frames.ts';

function ok(frame: unknown): Extract<ClientFrameParse, { ok: true }> {
  const r = parseClientFrame(JSON.stringify(frame));
  if (!r.ok) throw new Error(`expected ${JSON.stringify(frame)} to parse, got ${JSON.stringify(r.reply)}`);
  return r;
}

/** The error reply a frame (a value, or a string taken as the frame's text) gets; asserts `invalid`. */
function invalid(frame: unknown, message: RegExp) {
  const r = typeof frame === 'string' ? parseClientFrame(frame) : parseClientFrame(JSON.stringify(frame));
  if (r.ok) throw new Error(`expected ${JSON.stringify(frame)} to be refused`);
  expect(r.reply.error.code).to.equal('invalid');
  expect(r.reply.error.message).to.match(message);
  return r.reply;
}

/** A JSON value whose compact serialization is exactly `bytes` bytes: a string. */
function jsonOfBytes(bytes: number, char = 'x'): string {
  return char.repeat(bytes - 2);
}

const ch = 'chat:room:1';

describe('client frame parser', () => {
  describe('frames that are not actions', () => {
    it('answers an unparseable frame with invalid and no id key', () => {
      const reply = invalid('{"id": 1, "action": "auth"', /not valid JSON/);
      expect(reply).to.not.have.property('id');
      expect(invalid('', /not valid JSON/)).to.not.have.property('id');
    });

    it('answers a non-object frame with invalid and no id key', () => {
      for (const frame of [[], [{ id: 1 }], 'auth', 42, null, true]) {
        expect(invalid(JSON.stringify(frame), /must be a JSON object/)).to.not.have.property('id');
      }
    });

    it('answers a frame without id with invalid and no id key', () => {
      expect(invalid({ action: 'auth', token: 't' }, /id is required/)).to.not.have.property('id');
    });

    it('answers an unknown or missing action with invalid, echoing the id', () => {
      expect(
        invalid({ id: 7, action: 'publish_all', channel: ch }, /unknown action "publish_all"/),
      ).to.include({
        id: 7,
      });
      expect(invalid({ id: 'a', action: 42 }, /unknown action 42/).id).to.equal('a');
      expect(invalid({ id: 'a', action: 'AUTH', token: 't' }, /unknown action/).id).to.equal('a');
      expect(invalid({ id: 'a' }, /action is required/).id).to.equal('a');
    });

    it('refuses fields an action does not take, naming them', () => {
      invalid({ id: 1, action: 'auth', token: 't', channel: ch }, /channel is not allowed in auth/);
      invalid({ id: 1, action: 'presence.update', channel: ch, info: 1, ttl_seconds: 5 }, /ttl_seconds/);
      invalid(
        { id: 1, action: 'subscribe', channel: ch, recover: { offset: 1, epoch: 'e', x: 1 } },
        /recover\.x/,
      );
    });
  });

  describe('id echo', () => {
    const ids = ['abc', '', 0, -1.5, 42, true, false, null, [1, 'a'], { n: 1, nested: { x: [null] } }];
    for (const id of ids) {
      it(`keeps an id of ${JSON.stringify(id)} with its JSON type, on success and on error`, () => {
        expect(ok({ id, action: 'unsubscribe', channel: ch }).frame.id).to.deep.equal(id);
        const reply = invalid({ id, action: 'unsubscribe' }, /channel is required/);
        expect(reply).to.have.property('id');
        expect(reply.id).to.deep.equal(id);
      });
    }

    it('refuses an in-memory id that has no JSON form, without an id key', () => {
      const r = validateClientFrame({ id: undefined, action: 'auth', token: 't' });
      expect(r.ok).to.equal(false);
      if (!r.ok) expect(r.reply).to.not.have.property('id');
    });
  });

  describe('auth', () => {
    it('takes a token', () => {
      expect(ok({ id: 1, action: 'auth', token: 'eyJ.x.y' })).to.deep.equal({
        ok: true,
        frame: { id: 1, action: 'auth', token: 'eyJ.x.y' },
        json: null,
      });
    });

    it('refuses a missing, empty or non-string token', () => {
      invalid({ id: 1, action: 'auth' }, /token/);
      invalid({ id: 1, action: 'auth', token: '' }, /token/);
      invalid({ id: 1, action: 'auth', token: 5 }, /token/);
    });
  });

  describe('channel names (every action but auth)', () => {
    const channelActions = CLIENT_ACTIONS.filter((a) => a !== 'auth');

    it('refuses a missing channel in every action that takes one', () => {
      for (const action of channelActions) invalid({ id: 1, action }, /channel is required/);
    });

    it('bounds names at 3 and 128 characters, namespace:rest, namespace at most 64', () => {
      const frame = (channel: unknown) => ({ id: 1, action: 'unsubscribe', channel });
      ok(frame('a:b'));
      ok(frame(`a:${'x'.repeat(126)}`));
      ok(frame(`${'n'.repeat(64)}:x`));
      ok(frame('a.b_c-d:e:f.g'));
      invalid(frame('a:'), /3 to 128/);
      invalid(frame(`a:${'x'.repeat(127)}`), /3 to 128/);
      invalid(frame(`${'n'.repeat(65)}:x`), /namespace 1 to 64/);
      invalid(frame('room42'), /namespace:rest/);
      invalid(frame(':room'), /namespace:rest/);
      invalid(frame('chat:room 1'), /namespace:rest/);
      invalid(frame('chat:ro/om'), /namespace:rest/);
      invalid(frame(12), /channel must be a string/);
    });
  });

  describe('subscribe', () => {
    it('takes a channel, with or without a recover cursor', () => {
      expect(ok({ id: 1, action: 'subscribe', channel: ch }).frame).to.deep.equal({
        id: 1,
        action: 'subscribe',
        channel: ch,
      });
      expect(
        ok({ id: 1, action: 'subscribe', channel: ch, recover: { offset: 7, epoch: 'abc' } }).frame,
      ).to.deep.equal({ id: 1, action: 'subscribe', channel: ch, recover: { offset: 7, epoch: 'abc' } });
      // A cursor taken before the channel had a message.
      ok({ id: 1, action: 'subscribe', channel: ch, recover: { offset: 0, epoch: '' } });
      ok({ id: 1, action: 'subscribe', channel: ch, recover: { offset: 0, epoch: 'e'.repeat(64) } });
    });

    it('refuses a half, negative, fractional or oversized cursor', () => {
      const sub = (recover: unknown) => ({ id: 1, action: 'subscribe', channel: ch, recover });
      invalid(sub({ offset: 1 }), /recover\.epoch is required/);
      invalid(sub({ epoch: 'e' }), /recover\.offset is required/);
      invalid(sub({ offset: -1, epoch: 'e' }), /recover\.offset must be an integer >= 0/);
      invalid(sub({ offset: 1.5, epoch: 'e' }), /recover\.offset/);
      invalid(sub({ offset: '1', epoch: 'e' }), /recover\.offset/);
      invalid(sub({ offset: 1, epoch: 5 }), /recover\.epoch/);
      invalid(sub({ offset: 1, epoch: 'e'.repeat(65) }), /at most 64/);
      invalid(sub([1, 'e']), /recover must be an object/);
      invalid(sub(null), /recover must be an object/);
    });
  });

  describe('unsubscribe, presence.leave, presence.get, presence.stats', () => {
    for (const action of ['unsubscribe', 'presence.leave', 'presence.get', 'presence.stats'] as const) {
      it(`${action} takes a channel only`, () => {
        expect(ok({ id: 'x', action, channel: ch })).to.deep.equal({
          ok: true,
          frame: { id: 'x', action, channel: ch },
          json: null,
        });
        invalid({ id: 'x', action, channel: ch, info: 1 }, /info is not allowed/);
      });
    }
  });

  describe('publish', () => {
    it('takes any JSON data and gives its compact serialization', () => {
      const r = ok({ id: 1, action: 'publish', channel: ch, data: { text: 'hi', n: [1, 2] } });
      expect(r.frame).to.deep.equal({
        id: 1,
        action: 'publish',
        channel: ch,
        data: { text: 'hi', n: [1, 2] },
      });
      expect(r.json).to.equal('{"text":"hi","n":[1,2]}');
      expect(ok({ id: 1, action: 'publish', channel: ch, data: null }).json).to.equal('null');
      expect(
        parseClientFrame(`{"id":1,"action":"publish","channel":"${ch}","data": { "a" : 1 }}`),
      ).to.deep.include({
        json: '{"a":1}',
      });
    });

    it('refuses a publish without data', () => {
      invalid({ id: 1, action: 'publish', channel: ch }, /data is required/);
    });

    it('allows 32 768 bytes of serialized data and refuses 32 769', () => {
      const at = jsonOfBytes(32_768);
      expect(ok({ id: 1, action: 'publish', channel: ch, data: at }).json).to.have.length(32_768);
      invalid(
        { id: 1, action: 'publish', channel: ch, data: jsonOfBytes(32_769) },
        /32769 bytes .* at most 32768/,
      );
    });

    it('counts UTF-8 bytes, not characters', () => {
      // "é" is 2 bytes: 2 quotes + 16 383 × 2 = 32 768 bytes; one more "é" is over.
      ok({ id: 1, action: 'publish', channel: ch, data: 'é'.repeat(16_383) });
      invalid({ id: 1, action: 'publish', channel: ch, data: 'é'.repeat(16_384) }, /32770 bytes/);
      // An emoji is one surrogate pair, 4 bytes: 2 + 8 191 × 4 = 32 766.
      ok({ id: 1, action: 'publish', channel: ch, data: `${'😀'.repeat(8_191)}xx` });
      invalid({ id: 1, action: 'publish', channel: ch, data: `${'😀'.repeat(8_191)}xxx` }, /32769 bytes/);
    });

    it('measures the compact form, not the whitespace a client sent', () => {
      const data = jsonOfBytes(32_768);
      const text = `{"id":1,"action":"publish","channel":"${ch}","data":   ${JSON.stringify(data)}   }`;
      expect(parseClientFrame(text).ok).to.equal(true);
    });
  });

  describe('presence.enter', () => {
    it('fills in info null and ttl_seconds 60 when not given', () => {
      expect(ok({ id: 1, action: 'presence.enter', channel: ch })).to.deep.equal({
        ok: true,
        frame: { id: 1, action: 'presence.enter', channel: ch, info: null, ttl_seconds: 60 },
        json: null,
      });
    });

    it('takes info and ttl_seconds', () => {
      const r = ok({ id: 1, action: 'presence.enter', channel: ch, info: { name: 'Ann' }, ttl_seconds: 30 });
      expect(r.frame).to.deep.equal({
        id: 1,
        action: 'presence.enter',
        channel: ch,
        info: { name: 'Ann' },
        ttl_seconds: 30,
      });
      expect(r.json).to.equal('{"name":"Ann"}');
    });

    it('bounds ttl_seconds at 1 and 3600', () => {
      const enter = (ttl_seconds: unknown) => ({ id: 1, action: 'presence.enter', channel: ch, ttl_seconds });
      expect(ok(enter(1)).frame).to.include({ ttl_seconds: 1 });
      expect(ok(enter(3600)).frame).to.include({ ttl_seconds: 3600 });
      invalid(enter(0), /ttl_seconds must be an integer from 1 to 3600/);
      invalid(enter(3601), /ttl_seconds must be an integer from 1 to 3600/);
      invalid(enter(1.5), /ttl_seconds/);
      invalid(enter('60'), /ttl_seconds/);
      invalid(enter(null), /ttl_seconds/);
    });

    it('allows 10 240 bytes of serialized info and refuses 10 241', () => {
      const enter = (info: unknown) => ({ id: 1, action: 'presence.enter', channel: ch, info });
      expect(ok(enter(jsonOfBytes(10_240))).json).to.have.length(10_240);
      invalid(enter(jsonOfBytes(10_241)), /10241 bytes .* at most 10240/);
    });
  });

  describe('presence.update', () => {
    it('takes info, null included', () => {
      expect(ok({ id: 1, action: 'presence.update', channel: ch, info: [1] })).to.deep.equal({
        ok: true,
        frame: { id: 1, action: 'presence.update', channel: ch, info: [1] },
        json: '[1]',
      });
      expect(ok({ id: 1, action: 'presence.update', channel: ch, info: null }).json).to.equal(null);
    });

    it('needs info', () => {
      invalid({ id: 1, action: 'presence.update', channel: ch }, /info is required/);
    });

    it('allows 10 240 bytes of serialized info and refuses 10 241', () => {
      const update = (info: unknown) => ({ id: 1, action: 'presence.update', channel: ch, info });
      ok(update(jsonOfBytes(10_240)));
      invalid(update(jsonOfBytes(10_241)), /10241 bytes/);
    });
  });

  describe('history', () => {
    const history = (fields: Record<string, unknown>) => ({
      id: 1,
      action: 'history',
      channel: ch,
      ...fields,
    });

    it('takes last_n, last_ms or a cursor', () => {
      expect(ok(history({ last_n: 10 })).frame).to.deep.equal({
        id: 1,
        action: 'history',
        channel: ch,
        last_n: 10,
      });
      expect(ok(history({ last_ms: 1500.5 })).frame).to.include({ last_ms: 1500.5 });
      expect(ok(history({ offset: 3, epoch: 'abc' })).frame).to.include({ offset: 3, epoch: 'abc' });
      expect(ok(history({ offset: 0, epoch: '' })).frame).to.include({ offset: 0, epoch: '' });
    });

    it('bounds last_n at 1 and 1000, as the HTTP history read', () => {
      ok(history({ last_n: 1 }));
      ok(history({ last_n: 1000 }));
      invalid(history({ last_n: 0 }), /last_n must be an integer from 1 to 1000/);
      invalid(history({ last_n: 1001 }), /last_n must be an integer from 1 to 1000/);
      invalid(history({ last_n: 2.5 }), /last_n/);
      invalid(history({ last_n: '10' }), /last_n/);
    });

    it('needs a positive last_ms', () => {
      ok(history({ last_ms: 0.001 }));
      invalid(history({ last_ms: 0 }), /last_ms must be a positive number/);
      invalid(history({ last_ms: -5 }), /last_ms/);
      invalid(history({ last_ms: '5' }), /last_ms/);
    });

    it('refuses a half cursor, a bad cursor, two windows, a window with a cursor, and nothing', () => {
      invalid(history({ offset: 3 }), /epoch is required with offset/);
      invalid(history({ epoch: 'abc' }), /offset is required with epoch/);
      invalid(history({ offset: -1, epoch: 'e' }), /offset must be an integer >= 0/);
      invalid(history({ offset: 1, epoch: 'e'.repeat(65) }), /at most 64/);
      invalid(history({ last_n: 1, last_ms: 5 }), /give one window/);
      invalid(history({ last_n: 1, offset: 1, epoch: 'e' }), /last_n cannot be given with a cursor/);
      invalid(history({ last_ms: 1, epoch: 'e' }), /last_ms cannot be given with a cursor/);
      invalid(history({}), /exactly one of a window/);
    });
  });

  it('answers every action in CLIENT_ACTIONS with a frame of that action', () => {
    const valid: Record<string, Record<string, unknown>> = {
      auth: { token: 't' },
      subscribe: { channel: ch },
      unsubscribe: { channel: ch },
      publish: { channel: ch, data: 1 },
      'presence.enter': { channel: ch },
      'presence.update': { channel: ch, info: null },
      'presence.leave': { channel: ch },
      'presence.get': { channel: ch },
      'presence.stats': { channel: ch },
      history: { channel: ch, last_n: 1 },
    };
    expect(Object.keys(valid)).to.have.members([...CLIENT_ACTIONS]);
    for (const action of CLIENT_ACTIONS) {
      expect(ok({ id: action, action, ...valid[action] }).frame.action).to.equal(action);
    }
  });
});
