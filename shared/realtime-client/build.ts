// The browser bundle: src/ as one ES module (with @lattice/realtime-protocol inlined), for a
// <script type="module"> or an import from a page. Node-only (esbuild), so it lives outside src/;
// `npm run build:client` writes it to dist/lattice-realtime.js.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

const packageDir = import.meta.dirname;
export const BUNDLE_PATH = join(packageDir, 'dist', 'lattice-realtime.js');

/** The bundle's text. */
export async function buildBrowserBundle(): Promise<string> {
  const result = await build({
    entryPoints: [join(packageDir, 'src', 'index.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    target: 'es2022',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error('esbuild produced no output');
  return file.text;
}

/** Writes the bundle to dist/lattice-realtime.js and returns its path. */
export async function writeBrowserBundle(path = BUNDLE_PATH): Promise<string> {
  const text = await buildBrowserBundle();
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const path = await writeBrowserBundle();
  console.log(`wrote ${path}`);
}
