import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { CodecError, createCodec, loadCodec } from './codec.ts';
import { rabinFingerprint64 } from './rabin.ts';
import { TOPIC_CATALOG } from './topics.ts';

const V1 = {
  type: 'record',
  name: 'Thing',
  namespace: 'test',
  fields: [{ name: 'id', type: 'string' }],
};
const V2 = {
  type: 'record',
  name: 'Thing',
  namespace: 'test',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'colour', type: 'string', default: 'blue' },
  ],
};

describe('Avro codecs', () => {
  it('computes the CRC-64-AVRO fingerprint of the Avro spec', () => {
    // Parsing canonical form "int" has the documented fingerprint 0x7275d51a3f395c8f.
    expect(rabinFingerprint64(Buffer.from('"int"')).toString(16)).to.equal('7275d51a3f395c8f');
  });

  it('writes single-object encoding: C3 01, the writer fingerprint, then the body', () => {
    const codec = createCodec<{ id: string }>([V1]);
    const bytes = codec.encode({ id: 'a' });
    expect([...bytes.subarray(0, 2)]).to.deep.equal([0xc3, 0x01]);
    expect(bytes.readBigUInt64LE(2)).to.equal(codec.fingerprint);
    expect({ ...codec.decode(bytes) }).to.deep.equal({ id: 'a' });
  });

  it('reads records written with an older schema version into the newest one', () => {
    const old = createCodec<{ id: string }>([V1]);
    const current = createCodec<{ id: string; colour: string }>([V1, V2]);
    expect(current.fingerprint).to.not.equal(old.fingerprint);
    expect({ ...current.decode(old.encode({ id: 'x' })) }).to.deep.equal({ id: 'x', colour: 'blue' });
  });

  it('refuses unknown fingerprints, foreign bytes and invalid values with CodecError', () => {
    const old = createCodec<{ id: string }>([V1]);
    const newer = createCodec<{ id: string; colour: string }>([V2]);
    expect(() => old.decode(newer.encode({ id: 'x', colour: 'red' }))).to.throw(
      CodecError,
      /unknown writer schema/,
    );
    expect(() => old.decode(Buffer.from('{"id":"x"}'))).to.throw(CodecError, /not an Avro/);
    expect(() => old.encode({ id: 3 } as unknown as { id: string })).to.throw(
      CodecError,
      /invalid value at id/,
    );
    const truncated = old.encode({ id: 'hello' }).subarray(0, 12);
    expect(() => old.decode(truncated)).to.throw(CodecError, /undecodable/);
  });

  it('loads versions from files, oldest first', () => {
    const dir = mkdtempSync(join(tmpdir(), 'avro-'));
    writeFileSync(join(dir, 'thing.v1.avsc'), JSON.stringify(V1));
    writeFileSync(join(dir, 'thing.avsc'), JSON.stringify(V2));
    const codec = loadCodec<{ id: string; colour: string }>('thing', dir);
    const v1 = createCodec<{ id: string }>([V1]);
    expect({ ...codec.decode(v1.encode({ id: 'q' })) }).to.deep.equal({ id: 'q', colour: 'blue' });
  });

  it('has a loadable schema for every topic in the catalog', () => {
    for (const spec of Object.values(TOPIC_CATALOG)) {
      expect(() => loadCodec(spec.schema), spec.schema).to.not.throw();
    }
  });

  it('round-trips a channel publish command', () => {
    const codec = loadCodec<Record<string, unknown>>('channel-command');
    const cmd = {
      command_id: 'c1',
      product_id: 'p1',
      environment: 'production',
      channel: 'chat:room',
      issued_at_ms: 1700000000000,
      // A union of records is written in Avro's wrapped form, keyed by the branch's full name.
      body: {
        'lattice.realtime.Publish': {
          message_id: 'm1',
          name: null,
          data_json: '{"text":"hi"}',
          ref: null,
          publisher: null,
          idempotency_key: 'k',
        },
      },
    };
    const decoded = codec.decode(codec.encode(cmd));
    expect(decoded).to.deep.include({ channel: 'chat:room', product_id: 'p1' });
    const body = decoded.body as Record<string, { data_json: string }>;
    expect(body['lattice.realtime.Publish']?.data_json).to.equal('{"text":"hi"}');
  });
});
