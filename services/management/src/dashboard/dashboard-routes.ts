// `{base_url}/dashboard/settings/public-access` and its two assets: static files that need no
// credential (decisions.md "Name and processes"); the page itself calls the API with the member
// token the user types. Operational routes: same router and error answers, no OpenAPI entry, no
// agent tool. Every answer carries a tight Content-Security-Policy: own-origin files only, no
// inline script or style, no framing (the page has Revoke buttons), no form posting anywhere.
import { ApiError, type Logger } from '@lattice/core';
import type { RouteDef } from '@lattice/http';

export const DASHBOARD_PAGE_PATH = '/dashboard/settings/public-access';
export const DASHBOARD_SCRIPT_PATH = '/dashboard/assets/public-access.js';
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
  /** The page's HTML and CSS (dashboard-files.ts pageFile). */
  html: string;
  css: string;
  /** The page's script bundle (dashboard-files.ts dashboardScript). */
  script(): Promise<string>;
  logger: Logger;
}

export function dashboardRoutes(deps: DashboardRouteDeps): RouteDef[] {
  const common = { area: 'system', auth: 'none', method: 'GET', operational: true } as const;
  const file = (contentType: string, body: string) => ({
    status: 200,
    body,
    contentType,
    headers: SECURITY_HEADERS,
  });
  return [
    {
      ...common,
      path: DASHBOARD_PAGE_PATH,
      operationId: 'system_dashboard_public_access',
      summary: 'The dashboard’s Settings → Public Access page',
      description: 'Static HTML; it signs in with a member token and calls the API on the same origin.',
      responses: { 200: { contentType: 'text/html' } },
      handler: () => file('text/html; charset=utf-8', deps.html),
    },
    {
      ...common,
      path: DASHBOARD_STYLE_PATH,
      operationId: 'system_dashboard_style',
      summary: 'The dashboard’s stylesheet',
      description: 'Static CSS of the dashboard pages.',
      responses: { 200: { contentType: 'text/css' } },
      handler: () => file('text/css; charset=utf-8', deps.css),
    },
    {
      ...common,
      path: DASHBOARD_SCRIPT_PATH,
      operationId: 'system_dashboard_script',
      summary: 'The dashboard page’s script, bundled from TypeScript',
      description:
        'Bundled once per process by esbuild; 503 `dashboard_unavailable` while it cannot be built.',
      responses: { 200: { contentType: 'text/javascript' }, 503: 'error-body' },
      async handler() {
        try {
          return file('text/javascript; charset=utf-8', await deps.script());
        } catch (err) {
          deps.logger.error({ err }, 'the dashboard script could not be bundled');
          throw new ApiError(
            503,
            'dashboard_unavailable',
            'dashboard',
            'The dashboard script could not be built; the server log says why',
          );
        }
      },
    },
  ];
}
