// The client as one ES module, by esbuild from src/ with @lattice/realtime-protocol inlined: for
// a <script type="module"> or an import from a page, for Node 22+ and for bundlers. The gateway's
// demo page serves buildBrowserBundle() (built on its first request); build-dist.ts writes the
// package's dist/ with the same builds. Node-only (esbuild), so it lives outside src/.
import { join } from 'node:path';
import { build } from 'esbuild';

const ENTRY = join(import.meta.dirname, 'src', 'index.ts');

export interface BundleOptions {
  /** `browser` for the file a page loads; `neutral` for Node and bundlers (no platform's defaults). */
  platform?: 'browser' | 'neutral';
  /** A comment put first in the file. */
  banner?: string;
}

/** The bundle's text: ES2022, ES module syntax, no Node code. */
export async function buildBrowserBundle(options: BundleOptions = {}): Promise<string> {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: 'esm',
    platform: options.platform ?? 'browser',
    write: false,
    target: 'es2022',
    legalComments: 'none',
    logLevel: 'silent',
    ...(options.banner ? { banner: { js: options.banner } } : {}),
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error('esbuild produced no output');
  return file.text;
}
