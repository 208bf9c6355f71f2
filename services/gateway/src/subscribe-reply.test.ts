import type { HistoryEntry, HistoryResult } from '@lattice/realtime-protocol';
import { expect } from 'chai';
import { subscribeReply } from './subscribe-reply.ts';

const entry = (offset: number, data: unknown = offset): HistoryEntry => ({
  id: `m${offset}`,
  offset,
  epoch: 'e',
  data: data as HistoryEntry['data'],
  published_at: '2026-01-01T00:00:00.000Z',
});
const answer = (
  from: number,
  to: number,
  recovered = true,
  data?: (o: number) => unknown,
): HistoryResult => ({
  data: Array.from({ length: to - from }, (_, i) => entry(from + i + 1, data?.(from + i + 1))),
  epoch: 'e',
  top_offset: to,
  recovered,
});
const bytesOf = (entries: HistoryEntry[]) =>
  entries.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)), 0);

describe('subscribe reply', () => {
  it('without recover: the position, recovered, nothing replayed', () => {
    expect(subscribeReply(answer(3, 7), undefined)).to.deep.equal({
      epoch: 'e',
      offset: 7,
      recovered: true,
      messages: [],
    });
  });

  it('replays 1 000 missed entries and refuses 1 001', () => {
    const at = subscribeReply(answer(0, 1000), { offset: 0, epoch: 'e' });
    expect(at.recovered).to.equal(true);
    expect(at.messages).to.have.length(1000);
    // 1 001 missed: the read serves 1 000 of them; the reply replays none.
    const over = answer(0, 1000);
    over.top_offset = 1001;
    expect(subscribeReply(over, { offset: 0, epoch: 'e' })).to.deep.equal({
      epoch: 'e',
      offset: 1001,
      recovered: false,
      messages: [],
    });
  });

  it('replays 512 KiB of serialized entries and refuses one byte more', () => {
    // Two entries whose data strings make the sum exactly 524 288 bytes.
    const pad = (target: number) => {
      const first = 'a'.repeat(100);
      const withFirst = answer(0, 2, true, (o) => (o === 1 ? first : ''));
      const rest = target - bytesOf(withFirst.data as HistoryEntry[]);
      return answer(0, 2, true, (o) => (o === 1 ? first : 'b'.repeat(rest)));
    };
    const exact = pad(524_288);
    expect(bytesOf(exact.data as HistoryEntry[])).to.equal(524_288);
    expect(subscribeReply(exact, { offset: 0, epoch: 'e' }).recovered).to.equal(true);
    const over = pad(524_289);
    expect(bytesOf(over.data as HistoryEntry[])).to.equal(524_289);
    expect(subscribeReply(over, { offset: 0, epoch: 'e' }))
      .to.include({ recovered: false })
      .and.have.property('messages').that.is.empty;
  });

  it('passes on a read that did not recover (another epoch, aged-out entries)', () => {
    expect(subscribeReply({ ...answer(5, 5), recovered: false }, { offset: 2, epoch: 'old' })).to.deep.equal({
      epoch: 'e',
      offset: 5,
      recovered: false,
      messages: [],
    });
  });

  it('counts a cursor taken before the first message (0, "") as of every epoch', () => {
    const r = subscribeReply(answer(0, 3), { offset: 0, epoch: '' });
    expect(r.messages.map((m) => m.offset)).to.deep.equal([1, 2, 3]);
  });
});
