// The WebSocket protocol (@lattice/realtime-protocol, dependency-free, so it cannot import these
// rules) repeats the numbers and the channel name rule of the HTTP side. This test keeps them in
// step: a change on one side fails here until the other follows.
import { readFileSync } from 'node:fs';
import * as protocol from '@lattice/realtime-protocol';
import { expect } from 'chai';
import { HISTORY_LAST_N_MAX } from './history/history-reader.ts';
import { EPOCH_MAX } from './http/channel-reads.ts';
import { CHANNEL_NAME_MAX, CHANNEL_NAME_MIN, channelNameProblem, NAMESPACE_NAME_MAX } from './names.ts';
import {
  PRESENCE_INFO_MAX_BYTES,
  PRESENCE_TTL_DEFAULT_SECONDS,
  PRESENCE_TTL_MAX_SECONDS,
  PRESENCE_TTL_MIN_SECONDS,
} from './presence/presence-rules.ts';

describe('the WebSocket protocol agrees with the HTTP side', () => {
  it('on the limits', () => {
    expect({
      CHANNEL_NAME_MIN: protocol.CHANNEL_NAME_MIN,
      CHANNEL_NAME_MAX: protocol.CHANNEL_NAME_MAX,
      NAMESPACE_NAME_MAX: protocol.NAMESPACE_NAME_MAX,
      EPOCH_MAX: protocol.EPOCH_MAX_LENGTH,
      HISTORY_LAST_N_MAX: protocol.HISTORY_LAST_N_MAX,
      PRESENCE_INFO_MAX_BYTES: protocol.PRESENCE_INFO_MAX_BYTES,
      PRESENCE_TTL_MIN_SECONDS: protocol.PRESENCE_TTL_MIN_SECONDS,
      PRESENCE_TTL_MAX_SECONDS: protocol.PRESENCE_TTL_MAX_SECONDS,
      PRESENCE_TTL_DEFAULT_SECONDS: protocol.PRESENCE_TTL_DEFAULT_SECONDS,
    }).to.deep.equal({
      CHANNEL_NAME_MIN,
      CHANNEL_NAME_MAX,
      NAMESPACE_NAME_MAX,
      EPOCH_MAX,
      HISTORY_LAST_N_MAX,
      PRESENCE_INFO_MAX_BYTES,
      PRESENCE_TTL_MIN_SECONDS,
      PRESENCE_TTL_MAX_SECONDS,
      PRESENCE_TTL_DEFAULT_SECONDS,
    });
  });

  it('on the history query schema', () => {
    const schema = JSON.parse(
      readFileSync(new URL('../../../schemas/http/realtime-history-query.json', import.meta.url), 'utf8'),
    );
    expect(schema.properties.last_n).to.include({
      minimum: protocol.HISTORY_LAST_N_MIN,
      maximum: protocol.HISTORY_LAST_N_MAX,
    });
    expect(schema.properties.epoch).to.include({ maxLength: protocol.EPOCH_MAX_LENGTH });
  });

  it('on which channel names are valid', () => {
    const names = [
      'a:b',
      'chat:room:1',
      'a.b_c-d:e:f.g',
      `a:${'x'.repeat(126)}`,
      `a:${'x'.repeat(127)}`,
      `${'n'.repeat(64)}:x`,
      `${'n'.repeat(65)}:x`,
      'a:',
      ':a',
      'ab',
      'room42',
      'chat:room 1',
      'chat:ro/om',
      'chat::x',
      'chat:x:',
      'é:x',
    ];
    for (const channel of names) {
      const parsed = protocol.parseClientFrame(JSON.stringify({ id: 1, action: 'unsubscribe', channel }));
      expect(parsed.ok, channel).to.equal(channelNameProblem(channel) === null);
    }
  });
});
