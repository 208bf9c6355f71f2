import { expect } from 'chai';
import {
  channelNameProblem,
  grantMatches,
  grantPatternProblem,
  isNamespaceName,
  namespaceOf,
} from './names.ts';

describe('realtime names', () => {
  it('bounds channel names at 3 and 128 characters', () => {
    expect(channelNameProblem('a:b')).to.equal(null);
    expect(channelNameProblem('a:')).to.match(/3 to 128/);
    expect(channelNameProblem(`a:${'x'.repeat(126)}`)).to.equal(null);
    expect(channelNameProblem(`a:${'x'.repeat(127)}`)).to.match(/3 to 128/);
  });

  it('needs a namespace segment and allowed characters', () => {
    expect(channelNameProblem('room42')).to.match(/namespace/);
    expect(channelNameProblem(':room')).to.match(/namespace/);
    expect(channelNameProblem('chat:room:1')).to.equal(null);
    expect(channelNameProblem('chat:room 1')).to.match(/only letters/);
    expect(channelNameProblem('chat:ro/om')).to.match(/only letters/);
    expect(namespaceOf('chat:room:1')).to.equal('chat');
  });

  it('bounds namespace names at 1 and 64 characters without colons', () => {
    expect(isNamespaceName('a')).to.equal(true);
    expect(isNamespaceName('')).to.equal(false);
    expect(isNamespaceName('x'.repeat(64))).to.equal(true);
    expect(isNamespaceName('x'.repeat(65))).to.equal(false);
    expect(isNamespaceName('a:b')).to.equal(false);
  });

  it('accepts grant patterns with a concrete namespace and up to 7 more segments', () => {
    expect(grantPatternProblem('chat:*')).to.equal(null);
    expect(grantPatternProblem('chat:1:2:3:4:5:6:7')).to.equal(null);
    expect(grantPatternProblem('chat:1:2:3:4:5:6:7:8')).to.match(/at most 7/);
    expect(grantPatternProblem('*:room')).to.match(/concrete namespace/);
    expect(grantPatternProblem('chat')).to.match(/at least one/);
  });

  it('matches `*` against exactly one segment', () => {
    expect(grantMatches('chat:*', 'chat:room')).to.equal(true);
    expect(grantMatches('chat:*', 'chat:room:1')).to.equal(false);
    expect(grantMatches('chat:*:typing', 'chat:a:typing')).to.equal(true);
    expect(grantMatches('chat:room', 'chat:room')).to.equal(true);
    expect(grantMatches('chat:room', 'news:room')).to.equal(false);
  });
});
