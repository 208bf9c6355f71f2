import { expect } from 'chai';
import { encodeFanOutMessage, encodePresenceResult } from './fanout.ts';

describe('fan-out wire format', () => {
  it('encodes a publication as the history entry plus type and channel, data spliced in as sent', () => {
    const text = encodeFanOutMessage({
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
    });
    expect(JSON.parse(text)).to.deep.equal({
      type: 'publication',
      channel: 'chat:room:1',
      id: 'm1',
      offset: 7,
      epoch: 'ep',
      name: 'greeting',
      published_at: '2025-01-02T03:04:05.000Z',
      data: { text: 'hi', n: [1, 2] },
    });
  });

  it('encodes a ref publication without data and without a null name', () => {
    const parsed = JSON.parse(
      encodeFanOutMessage({
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
      }),
    );
    expect(parsed).to.not.have.property('data');
    expect(parsed).to.not.have.property('name');
    expect(parsed.ref).to.deep.equal({
      bucket_key: 'p/2025-01-01/k',
      size: 300000,
      content_type: 'application/json',
    });
  });

  it('encodes presence events and results', () => {
    expect(
      JSON.parse(
        encodeFanOutMessage({
          type: 'presence',
          channel: 'c:x',
          action: 'leave',
          identity: 'ext:ann',
          connections: 0,
          infoJson: '{"a":1}',
          reason: 'expired',
        }),
      ),
    ).to.deep.equal({
      type: 'presence',
      channel: 'c:x',
      action: 'leave',
      identity: 'ext:ann',
      connections: 0,
      reason: 'expired',
      info: { a: 1 },
    });
    expect(
      JSON.parse(
        encodePresenceResult({
          commandId: 'cmd',
          channel: 'c:x',
          connectionId: 'conn',
          action: 'enter',
          error: { code: 'full', message: 'the roster is full (100 members)' },
        }),
      ),
    ).to.deep.equal({
      type: 'presence_result',
      command_id: 'cmd',
      channel: 'c:x',
      connection_id: 'conn',
      action: 'enter',
      ok: false,
      error: { code: 'full', message: 'the roster is full (100 members)' },
    });
  });
});
