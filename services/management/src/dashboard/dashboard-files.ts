// Where the dashboard's pages live (services/management/dashboard/: HTML, the parts the pages
// share, CSS and the scripts' TypeScript) and the esbuild bundles of their scripts, one
// self-contained ES module per page.
// The bundles are built together once per process, in memory, when the first management app is
// built (about 50 ms), so a fresh clone needs no build step: `npm start` and `lattice start` serve
// the pages as they are.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PAGE_DIR = fileURLToPath(new URL('../../dashboard/', import.meta.url));

/** The dashboard's pages, each `<page>.html` with its script `<page>.ts`. */
export const DASHBOARD_PAGES = ['public-access', 'members'] as const;
export type DashboardPage = (typeof DASHBOARD_PAGES)[number];

/** Each page's script bundle. */
export type DashboardScripts = Readonly<Record<DashboardPage, string>>;

/** A file of the pages, read once (HTML, CSS); a missing file stops the server at start. */
export function pageFile(name: string): string {
  return readFileSync(`${PAGE_DIR}${name}`, 'utf8');
}

/** A line `<!-- include NAME.part.html -->`: the place of a part every page shares. */
const INCLUDE_LINE = /^[ \t]*<!-- include ([a-z-]+\.part\.html) -->\n/gm;

/**
 * A page's HTML as it is served: each include line replaced by the part it names, as the part is
 * written (sign-in.part.html: the notices and the sign-in form that sign-in.ts wires).
 */
export function pageHtml(page: DashboardPage): string {
  return pageFile(`${page}.html`).replace(INCLUDE_LINE, (_line, part: string) => pageFile(part));
}

/** Every page's HTML and the shared stylesheet, read once. */
export function readDashboardFiles(): { pages: Readonly<Record<DashboardPage, string>>; css: string } {
  const pages = Object.fromEntries(DASHBOARD_PAGES.map((page) => [page, pageHtml(page)]));
  return { pages: pages as Record<DashboardPage, string>, css: pageFile('dashboard.css') };
}

/** Every page's script, each one ES module, in one esbuild run. esbuild is imported on first use only. */
export async function buildDashboardScripts(): Promise<DashboardScripts> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: Object.fromEntries(DASHBOARD_PAGES.map((page) => [page, `${PAGE_DIR}${page}.ts`])),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    // In memory only (write: false); the directory just names the outputs, one per entry.
    outdir: PAGE_DIR,
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const scripts: Partial<Record<DashboardPage, string>> = {};
  for (const page of DASHBOARD_PAGES) {
    const file = result.outputFiles.find((f) => f.path === `${PAGE_DIR}${page}.js`);
    if (!file) throw new Error(`esbuild produced no output for ${page}`);
    scripts[page] = file.text;
  }
  return scripts as DashboardScripts;
}

/** One page's script (the Public Access page's by default). */
export async function buildDashboardScript(page: DashboardPage = 'public-access'): Promise<string> {
  return (await buildDashboardScripts())[page];
}

let cached: Promise<DashboardScripts> | undefined;

/** The bundles, built on the first call and kept; a failed build is retried on the next call. */
export function dashboardScripts(): Promise<DashboardScripts> {
  cached ??= buildDashboardScripts().catch((err: unknown) => {
    cached = undefined;
    throw err;
  });
  return cached;
}
