// The pages' only way to the management API: same origin, `Authorization: Bearer` with the
// member token, JSON in and out. A refusal becomes an ApiProblem carrying the API's own words
// (`error.message`, `fields`), which the page shows as they are.
import type { Toolkit } from '@lattice/http/public-routes';
import type {
  AuditEntryView,
  CreatedKey,
  CreatedMember,
  CreatedMemberToken,
  Environment,
  FieldProblem,
  KeyPage,
  MemberTokenView,
  MemberView,
  Page,
  ProductView,
  PublicKeyView,
  Role,
  Scope,
} from './api-types.ts';

/** Keys per list request: the API's maximum, so most products need one page. */
export const KEY_PAGE_SIZE = 100;
/** Members and member tokens per list request: the API's maximum as well. */
export const MEMBER_PAGE_SIZE = 100;
/** Audit entries per request: the API's default, a screenful or two of the newest changes. */
export const AUDIT_PAGE_SIZE = 50;

function pageQuery(limit: number, cursor: string | null): URLSearchParams {
  const query = new URLSearchParams({ limit: String(limit) });
  if (cursor !== null) query.set('cursor', cursor);
  return query;
}

export class ApiProblem extends Error {
  readonly status: number;
  readonly code: string;
  readonly fields: readonly FieldProblem[];

  constructor(status: number, code: string, message: string, fields: readonly FieldProblem[] = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields;
  }
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; fields?: unknown };
}

function problemOf(status: number, statusText: string, json: unknown): ApiProblem {
  const error = (json as ErrorBody | undefined)?.error;
  if (error && typeof error.message === 'string') {
    const fields = Array.isArray(error.fields)
      ? (error.fields as FieldProblem[]).filter((f) => typeof f?.message === 'string')
      : [];
    return new ApiProblem(status, String(error.code ?? 'error'), error.message, fields);
  }
  // A proxy's page or an empty answer: say what arrived rather than invent a reason.
  return new ApiProblem(status, 'unexpected_answer', `The API answered ${status} ${statusText}.`.trim());
}

export type Api = ReturnType<typeof createApi>;

export function createApi(token: string) {
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(path, {
        method,
        headers,
        // The token travels in the header only: no cookies, no cache of answers that list keys.
        credentials: 'omit',
        cache: 'no-store',
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (err) {
      throw new ApiProblem(0, 'network_error', `The API could not be reached: ${(err as Error).message}`);
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!res.ok) throw problemOf(res.status, res.statusText, json);
    return json as T;
  }

  const keyPath = (id: string) => `/organization/public-keys/${encodeURIComponent(id)}`;
  const memberPath = (id: string) => `/organization/members/${encodeURIComponent(id)}`;
  const tokenPath = (id: string) => `/organization/member-tokens/${encodeURIComponent(id)}`;

  return {
    product: () => call<ProductView>('GET', '/organization/product'),
    listKeys: (cursor: string | null) =>
      call<KeyPage>('GET', `/organization/public-keys?${pageQuery(KEY_PAGE_SIZE, cursor)}`),
    createKey: (body: { name: string; environment: Environment; scope: Scope }) =>
      call<CreatedKey>('POST', '/organization/public-keys', body),
    updateScope: (id: string, scope: Scope) => call<PublicKeyView>('PUT', `${keyPath(id)}/scope`, { scope }),
    revoke: (id: string) => call<PublicKeyView>('POST', `${keyPath(id)}/revoke`),
    importKeys: (toolkit: Toolkit) =>
      call<{ data: PublicKeyView[] }>('POST', '/organization/public-keys/import', { toolkit }),
    listMembers: (cursor: string | null) =>
      call<Page<MemberView>>('GET', `/organization/members?${pageQuery(MEMBER_PAGE_SIZE, cursor)}`),
    createMember: (body: { name: string; role: Role }) =>
      call<CreatedMember>('POST', '/organization/members', body),
    updateMemberRole: (id: string, role: Role) => call<MemberView>('PUT', `${memberPath(id)}/role`, { role }),
    removeMember: (id: string) => call<void>('DELETE', memberPath(id)),
    /** The caller's own tokens. */
    listOwnTokens: (cursor: string | null) =>
      call<Page<MemberTokenView>>(
        'GET',
        `/organization/member-tokens?${pageQuery(MEMBER_PAGE_SIZE, cursor)}`,
      ),
    createOwnToken: (name: string) =>
      call<CreatedMemberToken>('POST', '/organization/member-tokens', { name }),
    revokeToken: (id: string) => call<MemberTokenView>('POST', `${tokenPath(id)}/revoke`),
    listAuditLog: (cursor: string | null) =>
      call<Page<AuditEntryView>>('GET', `/organization/audit-log?${pageQuery(AUDIT_PAGE_SIZE, cursor)}`),
  };
}
