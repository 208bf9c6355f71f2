import { expect } from 'chai';
import { ACTION_OPS, CLIENT_ACTIONS } from './client-frames.ts';
import {
  CLOSE_CODES,
  closeCodeName,
  ERROR_CODES,
  isErrorCode,
  PRESENCE_ACTIONS,
  reconnectRuleOf,
  UNSUBSCRIBED_REASONS,
} from './codes.ts';
import { errorReply, resultReply } from './server-frames.ts';

describe('protocol codes', () => {
  it('has the four error frame codes of the spec', () => {
    expect([...ERROR_CODES]).to.deep.equal(['invalid', 'forbidden', 'unavailable', 'rate_limited']);
    expect(isErrorCode('rate_limited')).to.equal(true);
    expect(isErrorCode('full')).to.equal(false);
  });

  it('has the close codes the gateway sends', () => {
    expect(CLOSE_CODES).to.deep.equal({
      token: 4001,
      draining: 4100,
      slowConsumer: 4200,
      tooBig: 1009,
      unsupportedData: 1003,
      tryAgainLater: 1013,
      tooManyConnections: 4429,
    });
    expect(closeCodeName(4200)).to.equal('slowConsumer');
    expect(closeCodeName(1000)).to.equal(null);
  });

  it('tells a client how to reconnect after each close', () => {
    expect(reconnectRuleOf(4001)).to.equal('fresh_token_at_once');
    expect(reconnectRuleOf(4100)).to.equal('at_once');
    expect(reconnectRuleOf(4200)).to.equal('backoff_and_recover');
    for (const other of [1000, 1001, 1003, 1006, 1009, 1011, 4000, 4002, 4429, 4999]) {
      expect(reconnectRuleOf(other), String(other)).to.equal('backoff');
    }
  });

  it('has the unsubscribed reasons and presence push actions of decisions.md', () => {
    expect([...UNSUBSCRIBED_REASONS]).to.deep.equal(['forbidden', 'recover']);
    expect([...PRESENCE_ACTIONS]).to.deep.equal(['join', 'update', 'leave']);
  });

  it('names the token op each action needs', () => {
    expect(Object.keys(ACTION_OPS)).to.have.members([...CLIENT_ACTIONS]);
    expect(ACTION_OPS).to.include({
      auth: null,
      unsubscribe: null,
      subscribe: 'subscribe',
      publish: 'publish',
      'presence.enter': 'presence',
      'presence.stats': 'presence',
      history: 'history',
    });
  });
});

describe('replies', () => {
  it('echo the id unchanged, null included, and leave it out when there is none', () => {
    expect(JSON.stringify(resultReply<'unsubscribe'>(3, {}))).to.equal('{"id":3,"result":{}}');
    expect(JSON.stringify(errorReply('forbidden', 'no', null))).to.equal(
      '{"id":null,"error":{"code":"forbidden","message":"no"}}',
    );
    expect(JSON.stringify(errorReply('invalid', 'bad'))).to.equal(
      '{"error":{"code":"invalid","message":"bad"}}',
    );
    expect(errorReply('invalid', 'x', { a: [1] })).to.deep.equal({
      id: { a: [1] },
      error: { code: 'invalid', message: 'x' },
    });
  });
});
