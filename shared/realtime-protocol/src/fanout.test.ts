import { expect } from 'chai';
import {
  decodeFanOutMessage,
  decodePresenceResult,
  encodeFanOutMessage,
  encodePresenceResult,
  type FanOutMessage,
  PRESENCE_ERROR_REPLY_CODES,
  type PresenceResult,
} from './fanout.ts';

// Golden texts: what the encoder in shared/realtime wrote before it moved here. Gateways of
// either side of a rolling deploy read them, so they must not change by a byte.
const golden: Array<[FanOutMessage, string]> = [
  [
    {
      type: 'publication',
      channel: 'chat:room:1',
      entry: {
        id: 'm1',
        offset: 7,
        epoch: 'ep',
        name: 'greeting',
        payload: { kind: 'data', json: '{"text":"hi","n":[1,2]}' },
        publishedAtMs: Date.UTC(2025, 0, 2, 3, 4, 5),
      },
    },
    '{"type":"publication","channel":"chat:room:1","id":"m1","offset":7,"epoch":"ep","name":"greeting","published_at":"2025-01-02T03:04:05.000Z","data":{"text":"hi","n":[1,2]}}',
  ],
  [
    {
      type: 'publication',
      channel: 'c:x',
      entry: {
        id: 'm2',
        offset: 1,
        epoch: 'ep',
        name: null,
        payload: {
          kind: 'ref',
          ref: { bucket_key: 'p/2025-01-01/k', size: 300000, content_type: 'application/json' },
        },
        publishedAtMs: 0,
      },
    },
    '{"type":"publication","channel":"c:x","id":"m2","offset":1,"epoch":"ep","published_at":"1970-01-01T00:00:00.000Z","ref":{"bucket_key":"p/2025-01-01/k","size":300000,"content_type":"application/json"}}',
  ],
  [
    {
      type: 'publication',
      channel: 'c:x',
      entry: {
        id: 'm3',
        offset: 2,
        epoch: '0123456789abcdef',
        name: 'é"q',
        payload: { kind: 'ref', ref: { bucket_key: 'k', size: 0 } },
        publishedAtMs: 1,
      },
    },
    '{"type":"publication","channel":"c:x","id":"m3","offset":2,"epoch":"0123456789abcdef","name":"é\\"q","published_at":"1970-01-01T00:00:00.001Z","ref":{"bucket_key":"k","size":0}}',
  ],
  [
    {
      type: 'presence',
      channel: 'c:x',
      action: 'leave',
      identity: 'ext:ann',
      connections: 0,
      infoJson: '{"a":1}',
      reason: 'expired',
    },
    '{"type":"presence","channel":"c:x","action":"leave","identity":"ext:ann","connections":0,"reason":"expired","info":{"a":1}}',
  ],
  [
    { type: 'presence', channel: 'c:x', action: 'join', identity: 'ext:bob', connections: 1, infoJson: null },
    '{"type":"presence","channel":"c:x","action":"join","identity":"ext:bob","connections":1,"info":null}',
  ],
  [
    {
      type: 'presence',
      channel: 'c:x',
      action: 'update',
      identity: 'ext:bob',
      connections: 2,
      infoJson: '[1,"x",null]',
    },
    '{"type":"presence","channel":"c:x","action":"update","identity":"ext:bob","connections":2,"info":[1,"x",null]}',
  ],
  [
    { type: 'event', channel: 'c:x', from: 'ext:ann', connectionId: 'gw1.c7', dataJson: '{"typing":true}' },
    '{"type":"event","channel":"c:x","from":"ext:ann","connection":"gw1.c7","data":{"typing":true}}',
  ],
];

const goldenResults: Array<[PresenceResult, string]> = [
  [
    {
      commandId: 'cmd',
      channel: 'c:x',
      connectionId: 'conn',
      action: 'enter',
      error: { code: 'full', message: 'the roster is full (100 members)' },
    },
    '{"type":"presence_result","command_id":"cmd","channel":"c:x","connection_id":"conn","action":"enter","ok":false,"error":{"code":"full","message":"the roster is full (100 members)"}}',
  ],
  [
    { commandId: 'cmd2', channel: 'c:x', connectionId: 'gw1.c42', action: 'leave' },
    '{"type":"presence_result","command_id":"cmd2","channel":"c:x","connection_id":"gw1.c42","action":"leave","ok":true}',
  ],
];

describe('fan-out encoding', () => {
  golden.forEach(([message, text], i) => {
    it(`encodes fan-out message ${i + 1} (${message.type}) byte for byte and decodes it back`, () => {
      expect(encodeFanOutMessage(message)).to.equal(text);
      expect(decodeFanOutMessage(text)).to.deep.equal(message);
      expect(encodeFanOutMessage(decodeFanOutMessage(text)!)).to.equal(text);
    });
  });

  goldenResults.forEach(([result, text], i) => {
    it(`encodes presence result ${i + 1} byte for byte and decodes it back`, () => {
      expect(encodePresenceResult(result)).to.equal(text);
      expect(decodePresenceResult(text)).to.deep.equal(result);
    });
  });

  it('splices inline data in as sent; decoding gives the same value in compact JSON', () => {
    const message: FanOutMessage = {
      type: 'publication',
      channel: 'c:x',
      entry: {
        id: 'm4',
        offset: 3,
        epoch: 'e',
        name: null,
        payload: { kind: 'data', json: '{ "a" : "😀 \\u2028" }' },
        publishedAtMs: 1732400000123,
      },
    };
    const text = encodeFanOutMessage(message);
    expect(text).to.equal(
      '{"type":"publication","channel":"c:x","id":"m4","offset":3,"epoch":"e","published_at":"2024-11-23T22:13:20.123Z","data":{ "a" : "😀 \\u2028" }}',
    );
    const decoded = decodeFanOutMessage(text);
    expect(decoded?.type === 'publication' && decoded.entry.payload).to.deep.equal({
      kind: 'data',
      json: JSON.stringify({ a: '😀 \u2028' }),
    });
  });

  it('decodes a presence message whose info is JSON null as no info', () => {
    expect(
      decodeFanOutMessage(
        '{"type":"presence","channel":"c:x","action":"join","identity":"ext:a","connections":1,"info":null}',
      ),
    ).to.deep.include({ infoJson: null });
  });

  it('refuses texts that are not fan-out messages', () => {
    const publication = golden[0]![1];
    const bad = [
      '',
      'not json',
      '[]',
      'null',
      '{"type":"other","channel":"c:x"}',
      publication.replace('"offset":7', '"offset":-1'),
      publication.replace('"offset":7', '"offset":"7"'),
      publication.replace('"channel":"chat:room:1",', ''),
      publication.replace('2025-01-02T03:04:05.000Z', 'yesterday'),
      publication.replace('"name":"greeting"', '"name":5'),
      // Neither data nor ref, and both.
      publication.replace(/,"data":.*}$/, '}'),
      publication.replace(/}$/, ',"ref":{"bucket_key":"k","size":1}}'),
      golden[1]![1].replace('"size":300000', '"size":"big"'),
      golden[3]![1].replace('"action":"leave"', '"action":"enter"'),
      golden[3]![1].replace(',"info":{"a":1}', ''),
      golden[3]![1].replace('"reason":"expired"', '"reason":1'),
      golden[3]![1].replace('"connections":0', '"connections":-1'),
      golden[6]![1].replace(',"data":{"typing":true}', ''),
      golden[6]![1].replace('"from":"ext:ann"', '"from":1'),
      golden[6]![1].replace('"connection":"gw1.c7",', ''),
    ];
    for (const text of bad) expect(decodeFanOutMessage(text), text).to.equal(null);
  });

  it('maps refused presence commands to WebSocket error codes (a full roster is rate_limited)', () => {
    expect(PRESENCE_ERROR_REPLY_CODES).to.deep.equal({
      full: 'rate_limited',
      invalid: 'invalid',
      forbidden: 'forbidden',
    });
  });

  it('refuses texts that are not presence results', () => {
    const [failed, succeeded] = [goldenResults[0]![1], goldenResults[1]![1]];
    const bad = [
      'x',
      '{}',
      failed.replace('"presence_result"', '"presence"'),
      failed.replace('"code":"full"', '"code":"busy"'),
      failed.replace('"ok":false', '"ok":true'),
      failed.replace(/,"error":.*}$/, '}'),
      succeeded.replace('"action":"leave"', '"action":"join"'),
      succeeded.replace('"ok":true', '"ok":"yes"'),
      succeeded.replace('"command_id":"cmd2",', ''),
    ];
    for (const text of bad) expect(decodePresenceResult(text), text).to.equal(null);
  });
});
