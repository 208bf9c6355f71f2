import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createPayloadStoreRegistry } from './payload-registry.ts';
import { createFilesystemPayloadStore } from './payload-store.fs.ts';
import { createS3PayloadStore } from './payload-store.s3.ts';
import type { PayloadStore } from './payload-store.ts';
import { sha256Hex, signV4 } from './sigv4.ts';

const PRODUCT = '9d1c2c3e-1111-4222-8333-444455556666';

/** The conformance suite every PayloadStore passes. */
function describePayloadStore(
  name: string,
  factory: () => Promise<{ store: PayloadStore; close(): Promise<void> }>,
) {
  describe(`payload store conformance: ${name}`, () => {
    let store: PayloadStore;
    let close: () => Promise<void>;
    beforeEach(async () => ({ store, close } = await factory()));
    afterEach(() => close());

    it('stores bytes under a product-scoped key and returns them with the content type', async () => {
      const bytes = Buffer.from(JSON.stringify({ big: 'x'.repeat(300_000) }));
      const ref = await store.put(PRODUCT, bytes, 'application/json');
      expect(ref.bucket_key).to.match(new RegExp(`${PRODUCT}/\\d{4}-\\d{2}-\\d{2}/[0-9a-f-]{36}$`));
      expect(ref).to.deep.include({ size: bytes.byteLength, content_type: 'application/json' });
      const got = await store.get(ref.bucket_key);
      expect(got?.bytes.equals(bytes)).to.equal(true);
      expect(got?.contentType).to.equal('application/json');
    });

    it('omits content_type when unknown and gives distinct keys', async () => {
      const a = await store.put(PRODUCT, Buffer.from('a'));
      const b = await store.put(PRODUCT, Buffer.from('b'));
      expect(a).to.not.have.property('content_type');
      expect(a.bucket_key).to.not.equal(b.bucket_key);
      expect((await store.get(b.bucket_key))?.bytes.toString()).to.equal('b');
    });

    it('answers null for a missing or foreign key, and refuses a bad product id', async () => {
      expect(await store.get(`${PRODUCT}/2025-01-01/00000000-0000-4000-8000-000000000000`)).to.equal(null);
      expect(await store.get('../../etc/passwd')).to.equal(null);
      let err: unknown;
      await store.put('../evil', Buffer.from('x')).catch((e: unknown) => (err = e));
      expect(err).to.be.instanceOf(TypeError);
    });
  });
}

describePayloadStore('filesystem', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lattice-payloads-'));
  return {
    store: createFilesystemPayloadStore({ dir }),
    close: () => rm(dir, { recursive: true, force: true }),
  };
});

const CREDENTIALS = { accessKeyId: 'AKIDLATTICETEST', secretAccessKey: 'c2VjcmV0LWtleS1vZi10aGUtdGVzdA' };
const AUTH_RE =
  /^AWS4-HMAC-SHA256 Credential=AKIDLATTICETEST\/(\d{8})\/eu-test-1\/s3\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/;

/** A tiny S3 stand-in: checks each request's SigV4 Authorization (format and signature), keeps bodies. */
function fakeS3(): Promise<{
  server: Server;
  endpoint: string;
  objects: Map<string, { body: Buffer; type?: string }>;
  seen: string[];
}> {
  const objects = new Map<string, { body: Buffer; type?: string }>();
  const seen: string[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const auth = req.headers.authorization ?? '';
    const m = AUTH_RE.exec(auth);
    const amzDate = String(req.headers['x-amz-date'] ?? '');
    const payloadHash = String(req.headers['x-amz-content-sha256'] ?? '');
    seen.push(auth);
    if (!m || !amzDate.startsWith(m[1]!) || payloadHash !== sha256Hex(body)) {
      res.writeHead(403).end('<Error><Code>SignatureDoesNotMatch</Code></Error>');
      return;
    }
    // Recompute the signature over the headers the client says it signed.
    const signedNames = m[2]!.split(';');
    if (!['host', 'x-amz-content-sha256', 'x-amz-date'].every((n) => signedNames.includes(n))) {
      res.writeHead(403).end('<Error><Code>AccessDenied</Code></Error>');
      return;
    }
    const headers: Record<string, string> = {};
    for (const n of signedNames) if (n !== 'host' && n !== 'x-amz-date') headers[n] = String(req.headers[n]);
    const url = new URL(req.url!, `http://${req.headers.host}`);
    const expected = signV4(
      { method: req.method!, url, headers, payloadHash },
      {
        credentials: CREDENTIALS,
        region: 'eu-test-1',
        service: 's3',
        date: new Date(
          `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
        ),
      },
    );
    if (expected.signature !== m[3]) {
      res.writeHead(403).end('<Error><Code>SignatureDoesNotMatch</Code></Error>');
      return;
    }
    const path = decodeURIComponent(url.pathname);
    if (req.method === 'PUT') {
      const type = req.headers['content-type'];
      objects.set(path, type ? { body, type } : { body });
      res.writeHead(200, { etag: '"x"' }).end();
    } else if (req.method === 'GET') {
      const o = objects.get(path);
      if (!o) res.writeHead(404).end('<Error><Code>NoSuchKey</Code></Error>');
      else res.writeHead(200, o.type ? { 'content-type': o.type } : {}).end(o.body);
    } else res.writeHead(405).end();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        objects,
        seen,
      }),
    ),
  );
}

describePayloadStore('S3-compatible (local SigV4-checking server)', async () => {
  const s3 = await fakeS3();
  const store = createS3PayloadStore({
    endpoint: s3.endpoint,
    bucket: 'payloads',
    region: 'eu-test-1',
    credentials: CREDENTIALS,
  });
  return { store, close: () => new Promise<void>((r) => s3.server.close(() => r())) };
});

describe('S3 payload store specifics', () => {
  it('uses path-style URLs under the key prefix and fails loudly on a bad signature', async () => {
    const s3 = await fakeS3();
    try {
      const store = createS3PayloadStore({
        endpoint: `${s3.endpoint}/`,
        bucket: 'payloads',
        region: 'eu-test-1',
        credentials: CREDENTIALS,
        keyPrefix: 'lattice/',
      });
      const ref = await store.put(PRODUCT, Buffer.from('{"a":1}'), 'application/json');
      expect(ref.bucket_key.startsWith(`lattice/${PRODUCT}/`)).to.equal(true);
      expect([...s3.objects.keys()]).to.deep.equal([`/payloads/${ref.bucket_key}`]);
      expect(s3.seen[0]).to.match(AUTH_RE);
      expect(s3.seen[0]).to.include('SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date,');
      const wrong = createS3PayloadStore({
        endpoint: s3.endpoint,
        bucket: 'payloads',
        region: 'eu-test-1',
        credentials: { ...CREDENTIALS, secretAccessKey: 'wrong' },
      });
      let err: unknown;
      await wrong.put(PRODUCT, Buffer.from('x')).catch((e: unknown) => (err = e));
      expect(String(err)).to.include('HTTP 403');
    } finally {
      await new Promise<void>((r) => s3.server.close(() => r()));
    }
  });
});

describe('payload store registry', () => {
  it('answers the store for provisioned products and null otherwise', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lattice-payloads-'));
    try {
      const store = createFilesystemPayloadStore({ dir });
      expect(createPayloadStoreRegistry({ store }).forProduct(PRODUCT)).to.equal(store);
      const some = createPayloadStoreRegistry({ store, products: [PRODUCT] });
      expect(some.forProduct(PRODUCT)).to.equal(store);
      expect(some.forProduct('other')).to.equal(null);
      expect(createPayloadStoreRegistry({ store: null }).forProduct(PRODUCT)).to.equal(null);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
