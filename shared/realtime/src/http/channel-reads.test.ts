import { expect } from 'chai';
import { parseHistoryQuery } from './channel-reads.ts';

const paths = (q: Record<string, unknown>) => {
  const r = parseHistoryQuery(q);
  return 'fields' in r ? r.fields.map((f) => f.path) : [];
};

describe('history query parsing', () => {
  it('reads one window or one cursor, from text or coerced numbers', () => {
    expect(parseHistoryQuery({ last_n: '1' })).to.deep.equal({ window: { lastN: 1 } });
    expect(parseHistoryQuery({ last_n: 1000 })).to.deep.equal({ window: { lastN: 1000 } });
    expect(parseHistoryQuery({ last_ms: '1' })).to.deep.equal({ window: { lastMs: 1 } });
    expect(parseHistoryQuery({ last_ms: '0.5' })).to.deep.equal({ window: { lastMs: 0.5 } });
    expect(parseHistoryQuery({ offset: '0', epoch: '' })).to.deep.equal({ cursor: { offset: 0, epoch: '' } });
    expect(parseHistoryQuery({ offset: 7, epoch: 'abc' })).to.deep.equal({
      cursor: { offset: 7, epoch: 'abc' },
    });
  });

  it('refuses out-of-range values on their field', () => {
    for (const v of ['0', '1001', '-1', '1.5', '', 'x', 0, 1001])
      expect(paths({ last_n: v }), String(v)).to.deep.equal(['query.last_n']);
    for (const v of ['0', '-1', 'abc', '', 0])
      expect(paths({ last_ms: v }), String(v)).to.deep.equal(['query.last_ms']);
    expect(paths({ offset: '-1', epoch: 'e' })).to.deep.equal(['query.offset']);
    expect(paths({ offset: '1', epoch: 'e'.repeat(65) })).to.deep.equal(['query.epoch']);
  });

  it('requires exactly one of window or cursor, and whole cursors', () => {
    expect(paths({ offset: '1' })).to.deep.equal(['query.epoch']);
    expect(paths({ epoch: 'e' })).to.deep.equal(['query.offset']);
    expect(paths({ last_n: '1', offset: '1', epoch: 'e' })).to.deep.equal(['query.last_n']);
    expect(paths({ last_n: '1', last_ms: '5' })).to.deep.equal(['query.last_ms']);
    expect(paths({})).to.deep.equal(['query']);
    expect(paths({ last_n: ['1', '2'] })).to.deep.equal(['query.last_n']);
    expect(paths({ last_n: '1', other: 'x' })).to.deep.equal(['query.other']);
  });
});
