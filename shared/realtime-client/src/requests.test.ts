import { expect } from 'chai';
import { RealtimeError } from './errors.ts';
import { RequestTable } from './requests.ts';

describe('request table', () => {
  it('hands out increasing integer ids', () => {
    const t = new RequestTable();
    expect([t.nextId(), t.nextId(), t.nextId()]).to.deep.equal([1, 2, 3]);
  });

  it('matches replies by id, in any order', async () => {
    const t = new RequestTable();
    const a = t.wait(t.nextId());
    const b = t.wait(t.nextId());
    expect(t.settle({ id: 2, result: { b: true } })).to.equal('settled');
    expect(t.settle({ id: 1, result: { a: true } })).to.equal('settled');
    expect(await a).to.deep.equal({ a: true });
    expect(await b).to.deep.equal({ b: true });
    expect(t.size).to.equal(0);
  });

  it('rejects with a RealtimeError carrying the error frame code', async () => {
    const t = new RequestTable();
    const p = t.wait(t.nextId());
    t.settle({ id: 1, error: { code: 'forbidden', message: 'no publish op for chat:a' } });
    const err = await p.catch((e: unknown) => e);
    expect(err).to.be.instanceOf(RealtimeError);
    expect(err).to.include({ code: 'forbidden', message: 'no publish op for chat:a' });
  });

  it('takes an unknown error code as unavailable', async () => {
    const t = new RequestTable();
    const p = t.wait(t.nextId());
    t.settle({ id: 1, error: { code: 'teapot', message: 'x' } });
    expect(await p.catch((e: unknown) => e)).to.include({ code: 'unavailable', message: 'x' });
  });

  it('ignores replies it does not wait for (late, foreign id types, no id)', () => {
    const t = new RequestTable();
    t.wait(t.nextId()).catch(() => {});
    expect(t.settle({ id: 7, result: {} })).to.equal('unknown');
    expect(t.settle({ id: '1', result: {} })).to.equal('unknown');
    expect(t.settle({ error: { code: 'invalid', message: 'unparseable' } })).to.equal('unknown');
    expect(t.size).to.equal(1);
  });

  it('rejects one or all', async () => {
    const t = new RequestTable();
    const a = t.wait(t.nextId());
    const b = t.wait(t.nextId());
    expect(t.reject(1, new RealtimeError('unavailable', 'timeout'))).to.equal(true);
    expect(t.reject(1, new RealtimeError('unavailable', 'timeout'))).to.equal(false);
    t.rejectAll(new RealtimeError('unavailable', 'closed'));
    expect(await a.catch((e: Error) => e.message)).to.equal('timeout');
    expect(await b.catch((e: Error) => e.message)).to.equal('closed');
    expect(t.settle({ id: 2, result: {} })).to.equal('unknown');
  });
});

describe('request table callbacks', () => {
  it('settles a tracked request synchronously, before the next frame is handled', () => {
    const t = new RequestTable();
    const seen: unknown[] = [];
    t.track(t.nextId(), { resolve: (r) => seen.push(r), reject: (e) => seen.push(e.message) });
    t.settle({ id: 1, result: { epoch: 'e' } });
    seen.push('next frame');
    expect(seen).to.deep.equal([{ epoch: 'e' }, 'next frame']);
  });
});
