// The dashboard's settings pages, `{base_url}/dashboard/settings/public-access` and
// `{base_url}/dashboard/settings/members`, and their assets: static files that need no credential
// (docs/organization.md, "Dashboard"); each page calls the API with the member token the user
// types. Operational routes: same router and error answers, no OpenAPI entry, no agent tool. Every
// answer carries a tight Content-Security-Policy: own-origin files only, no inline script or
// style, no framing (the pages have Revoke and Remove buttons), no form posting anywhere.
import { ApiError, type Logger } from '@lattice/core';
import type { RouteDef } from '@lattice/http';
import type { DashboardPage, DashboardScripts } from './dashboard-files.ts';

export const DASHBOARD_PAGE_PATH = '/dashboard/settings/public-access';
export const DASHBOARD_SCRIPT_PATH = '/dashboard/assets/public-access.js';
export const MEMBERS_PAGE_PATH = '/dashboard/settings/members';
export const MEMBERS_SCRIPT_PATH = '/dashboard/assets/members.js';
export const DASHBOARD_STYLE_PATH = '/dashboard/assets/dashboard.css';

export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'Content-Security-Policy': DASHBOARD_CSP,
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

export interface DashboardRouteDeps {
  /** Each page's HTML, and the stylesheet they share (dashboard-files.ts readDashboardFiles). */
  pages: Readonly<Record<DashboardPage, string>>;
  css: string;
  /** The pages' script bundles (dashboard-files.ts dashboardScripts). */
  scripts(): Promise<DashboardScripts>;
  logger: Logger;
}

/** Each page: where it is served, its script's path, and its operational route ids. */
const PAGES: ReadonlyArray<{
  page: DashboardPage;
  path: string;
  scriptPath: string;
  operationId: string;
  scriptOperationId: string;
  title: string;
}> = [
  {
    page: 'public-access',
    path: DASHBOARD_PAGE_PATH,
    scriptPath: DASHBOARD_SCRIPT_PATH,
    operationId: 'system_dashboard_public_access',
    scriptOperationId: 'system_dashboard_script',
    title: 'Settings → Public Access',
  },
  {
    page: 'members',
    path: MEMBERS_PAGE_PATH,
    scriptPath: MEMBERS_SCRIPT_PATH,
    operationId: 'system_dashboard_members',
    scriptOperationId: 'system_dashboard_members_script',
    title: 'Settings → Members',
  },
];

export function dashboardRoutes(deps: DashboardRouteDeps): RouteDef[] {
  const common = { area: 'system', auth: 'none', method: 'GET', operational: true } as const;
  const file = (contentType: string, body: string) => ({
    status: 200,
    body,
    contentType,
    headers: SECURITY_HEADERS,
  });
  async function script(page: DashboardPage) {
    try {
      return file('text/javascript; charset=utf-8', (await deps.scripts())[page]);
    } catch (err) {
      deps.logger.error({ err }, 'the dashboard scripts could not be bundled');
      throw new ApiError(
        503,
        'dashboard_unavailable',
        'dashboard',
        'The dashboard script could not be built; the server log says why',
      );
    }
  }
  return [
    ...PAGES.flatMap((p): RouteDef[] => [
      {
        ...common,
        path: p.path,
        operationId: p.operationId,
        summary: `The dashboard’s ${p.title} page`,
        description: 'Static HTML; it signs in with a member token and calls the API on the same origin.',
        responses: { 200: { contentType: 'text/html' } },
        handler: () => file('text/html; charset=utf-8', deps.pages[p.page]),
      },
      {
        ...common,
        path: p.scriptPath,
        operationId: p.scriptOperationId,
        summary: `The dashboard’s ${p.title} script, bundled from TypeScript`,
        description:
          'Bundled once per process by esbuild; 503 `dashboard_unavailable` while it cannot be built.',
        responses: { 200: { contentType: 'text/javascript' }, 503: 'error-body' },
        handler: () => script(p.page),
      },
    ]),
    {
      ...common,
      path: DASHBOARD_STYLE_PATH,
      operationId: 'system_dashboard_style',
      summary: 'The dashboard’s stylesheet',
      description: 'Static CSS of the dashboard pages.',
      responses: { 200: { contentType: 'text/css' } },
      handler: () => file('text/css; charset=utf-8', deps.css),
    },
  ];
}
