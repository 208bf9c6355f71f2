import { expect } from 'chai';
import { publishWaitMsOf } from './publish-preference.ts';

describe('publish: Prefer return=representation and its wait', () => {
  it('asks for nothing without the header, with return=minimal or with other preferences', () => {
    expect(publishWaitMsOf(undefined)).to.equal(null);
    expect(publishWaitMsOf('')).to.equal(null);
    expect(publishWaitMsOf('return=minimal')).to.equal(null);
    expect(publishWaitMsOf('return=minimal, wait=2')).to.equal(null);
    expect(publishWaitMsOf('respond-async, wait=2')).to.equal(null);
    expect(publishWaitMsOf('handling=strict')).to.equal(null);
    expect(publishWaitMsOf('return')).to.equal(null);
    // The first `return` counts.
    expect(publishWaitMsOf('return=minimal, return=representation')).to.equal(null);
  });

  it('waits 5 s by default, names and values in any case', () => {
    expect(publishWaitMsOf('return=representation')).to.equal(5000);
    expect(publishWaitMsOf('RETURN=Representation')).to.equal(5000);
    expect(publishWaitMsOf('Return="REPRESENTATION"')).to.equal(5000);
    expect(publishWaitMsOf('return=representation, WAIT=2')).to.equal(2000);
  });

  it('takes wait from 1 to 5 seconds as given, and clamps values outside into the range', () => {
    expect(publishWaitMsOf('return=representation, wait=1')).to.equal(1000);
    expect(publishWaitMsOf('return=representation, wait=5')).to.equal(5000);
    expect(publishWaitMsOf('return=representation, wait=0')).to.equal(1000);
    expect(publishWaitMsOf('return=representation, wait=6')).to.equal(5000);
    expect(publishWaitMsOf('return=representation, wait=99999999999999999999999')).to.equal(5000);
    expect(publishWaitMsOf('return=representation, wait=002')).to.equal(2000);
  });

  it('ignores a wait that is not a number of seconds (the default applies)', () => {
    for (const wait of ['wait=abc', 'wait=1.5', 'wait=-1', 'wait=', 'wait', 'wait=2s', 'wait=" 2"']) {
      expect(publishWaitMsOf(`return=representation, ${wait}`), wait).to.equal(5000);
    }
  });

  it('reads preferences across several Prefer headers, and wait as a parameter of return', () => {
    expect(publishWaitMsOf(['return=representation', 'wait=3'])).to.equal(3000);
    expect(publishWaitMsOf(['wait=2', 'return=representation'])).to.equal(2000);
    expect(publishWaitMsOf(['return=minimal', 'return=representation'])).to.equal(null);
    expect(publishWaitMsOf('return=representation; wait=4')).to.equal(4000);
    // The preference of its own comes first.
    expect(publishWaitMsOf('return=representation; wait=4, wait=1')).to.equal(1000);
  });
});
