// Kafka record values are Avro single-object encoded: 0xC3 0x01, the writer schema's 8-byte
// CRC-64-AVRO fingerprint (little endian), then the Avro binary body. The fingerprint lets a
// reader pick the writer schema it was produced with and resolve it into its own (newest)
// schema, so schemas evolve without a flag day.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import avro from 'avsc';
import { rabinFingerprint64 } from './rabin.ts';

const MAGIC = Buffer.from([0xc3, 0x01]);
const HEADER_BYTES = 10;

export class CodecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CodecError';
  }
}

export interface Codec<T> {
  /** Full Avro name of the record, e.g. `lattice.realtime.ChannelCommand`. */
  readonly name: string;
  readonly fingerprint: bigint;
  encode(value: T): Buffer;
  decode(bytes: Buffer): T;
}

function fingerprintOf(type: avro.Type): bigint {
  return rabinFingerprint64(Buffer.from(JSON.stringify(type.schema()), 'utf8'));
}

/**
 * A codec for one record name. `versions` are the schema's versions, oldest first; the last is
 * the one written and read into. Older versions are kept so their records still decode.
 */
export function createCodec<T>(versions: readonly object[]): Codec<T> {
  if (versions.length === 0) throw new CodecError('a codec needs at least one schema version');
  const types = versions.map((schema) => avro.Type.forSchema(schema as avro.Schema));
  const current = types[types.length - 1]!;
  const name = current.name ?? '';
  for (const t of types) {
    if (t.name !== name) throw new CodecError(`schema versions of ${name} name ${t.name} instead`);
  }
  const currentFp = fingerprintOf(current);
  const readers = new Map<bigint, (body: Buffer) => T>();
  for (const writer of types) {
    const fp = fingerprintOf(writer);
    const resolver = writer === current ? undefined : current.createResolver(writer);
    readers.set(fp, (body) => current.fromBuffer(body, resolver) as T);
  }
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeBigUInt64LE(currentFp, 2);

  return {
    name,
    fingerprint: currentFp,
    encode(value: T): Buffer {
      const errors: string[] = [];
      const valid = current.isValid(value, { errorHook: (path) => errors.push(path.join('.') || '(root)') });
      if (!valid) throw new CodecError(`${name}: invalid value at ${errors.join(', ')}`);
      return Buffer.concat([header, current.toBuffer(value)]);
    },
    decode(bytes: Buffer): T {
      if (bytes.length < HEADER_BYTES || bytes[0] !== MAGIC[0] || bytes[1] !== MAGIC[1]) {
        throw new CodecError(`${name}: not an Avro single-object encoded record`);
      }
      const fp = bytes.readBigUInt64LE(2);
      const read = readers.get(fp);
      if (!read) throw new CodecError(`${name}: unknown writer schema fingerprint ${fp.toString(16)}`);
      try {
        return read(bytes.subarray(HEADER_BYTES));
      } catch (err) {
        throw new CodecError(`${name}: undecodable body (${(err as Error).message})`);
      }
    },
  };
}

/**
 * Reads `<dir>/<name>.avsc` and any older versions `<dir>/<name>.v<N>.avsc` (oldest first).
 */
export function loadSchemaVersions(dir: string, name: string): object[] {
  const files = readdirSync(dir).filter(
    (f) => f === `${name}.avsc` || new RegExp(`^${name}\\.v\\d+\\.avsc$`).test(f),
  );
  const version = (f: string) => Number(/\.v(\d+)\.avsc$/.exec(f)?.[1] ?? Number.POSITIVE_INFINITY);
  files.sort((a, b) => version(a) - version(b));
  if (files.length === 0) throw new CodecError(`no Avro schema ${name}.avsc in ${dir}`);
  return files.map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as object);
}

/** The project's `schemas/avro` folder. */
export const AVRO_SCHEMA_DIR = new URL('../../../schemas/avro/', import.meta.url).pathname;

/** The codec of a record kept in the project's `schemas/avro` folder, by file stem. */
export function loadCodec<T>(stem: string, dir: string = AVRO_SCHEMA_DIR): Codec<T> {
  return createCodec<T>(loadSchemaVersions(dir, stem));
}
