// Where the dashboard's page lives (services/management/dashboard/: HTML, CSS and the script's
// TypeScript) and the esbuild bundle of its script. The bundle is built once per process, in
// memory, when the first management app is built (about 50 ms), so a fresh clone needs no
// build step: `npm start` and `lattice start` serve the page as they are.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PAGE_DIR = fileURLToPath(new URL('../../dashboard/', import.meta.url));

export const DASHBOARD_ENTRY = `${PAGE_DIR}public-access.ts`;

/** A file of the page, read once (HTML, CSS); a missing file stops the server at start. */
export function pageFile(name: string): string {
  return readFileSync(`${PAGE_DIR}${name}`, 'utf8');
}

/** The page's script as one ES module. esbuild is imported on first use only. */
export async function buildDashboardScript(): Promise<string> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [DASHBOARD_ENTRY],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error('esbuild produced no output');
  return file.text;
}

let cached: Promise<string> | undefined;

/** The bundle, built on the first call and kept; a failed build is retried on the next call. */
export function dashboardScript(): Promise<string> {
  cached ??= buildDashboardScript().catch((err: unknown) => {
    cached = undefined;
    throw err;
  });
  return cached;
}
