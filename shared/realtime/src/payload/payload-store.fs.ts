// PayloadStore in a local folder (the default for local use: `<dataDir>/payloads`). The content
// type, when known, is kept beside the bytes in `<key>.meta.json`. Writes go through a temporary
// file and a rename, so a reader never sees half a payload.
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type Clock, systemClock } from '@lattice/core';
import { isPayloadKey, newPayloadKey } from './payload-key.ts';
import type { PayloadStore } from './payload-store.ts';

export interface FilesystemPayloadStoreOptions {
  dir: string;
  clock?: Clock;
}

async function writeAtomically(path: string, data: Uint8Array | string): Promise<void> {
  const tmp = `${path}.${randomUUID()}.tmp`;
  await writeFile(tmp, data);
  await rename(tmp, path);
}

async function readOrNull(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export function createFilesystemPayloadStore(opts: FilesystemPayloadStoreOptions): PayloadStore {
  const clock = opts.clock ?? systemClock;
  return {
    async put(productId, bytes, contentType) {
      const key = newPayloadKey(productId, clock.nowMs());
      const path = join(opts.dir, key);
      await mkdir(dirname(path), { recursive: true });
      if (contentType !== undefined) {
        await writeAtomically(`${path}.meta.json`, JSON.stringify({ content_type: contentType }));
      }
      await writeAtomically(path, bytes);
      return contentType === undefined
        ? { bucket_key: key, size: bytes.byteLength }
        : { bucket_key: key, size: bytes.byteLength, content_type: contentType };
    },
    async get(bucketKey) {
      if (!isPayloadKey(bucketKey)) return null;
      const path = join(opts.dir, bucketKey);
      const bytes = await readOrNull(path);
      if (bytes === null) return null;
      const meta = await readOrNull(`${path}.meta.json`);
      const contentType = meta
        ? (JSON.parse(meta.toString('utf8')) as { content_type?: string }).content_type
        : undefined;
      return contentType === undefined ? { bytes } : { bytes, contentType };
    },
  };
}
