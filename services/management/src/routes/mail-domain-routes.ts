// Mail area: sending domains (decisions.md "Management paths", "Mail (interfaces)"). Member
// tokens of the product and full_access mail keys reach them; a sending_access key does not (no
// SENDING_ACCESS here). A domain is created pending with its DKIM key; `mail_domain_verify`
// looks its records up in DNS and makes it verified when every one resolves to its value, and
// pending again when one no longer does (decisions.md applied literally).
import type { RouteDef } from '@lattice/http';
import {
  type DnsLookup,
  DOMAIN_NAME_MAX_CHARS,
  type DomainRecord,
  type DomainRecordSettings,
  type DomainStore,
  domainRecords,
  MAIL_ERRORS,
  type MailDomain,
  sendingDomainName,
  verifyDomainRecords,
} from '@lattice/mail';
import { validationError } from '../errors.ts';
import { principalOf } from './principal.ts';

const common = { area: 'mail', auth: 'management' } as const;

export interface MailDomainRouteDeps {
  domains: DomainStore;
  dns: DnsLookup;
  /** MAIL_RETURN_PATH_MX and MAIL_SPF_INCLUDE. */
  domainRecords: DomainRecordSettings;
}

/** The API answer. Records show the domain's status unless a verification just judged each. */
export function mailDomainView(d: MailDomain, records: readonly DomainRecord[]) {
  return {
    id: d.id,
    name: d.name,
    status: d.status,
    open_tracking: d.openTracking,
    click_tracking: d.clickTracking,
    records: records.map(({ kind: _kind, ...shown }) => shown),
    created_at: d.createdAt.toISOString(),
    verified_at: d.verifiedAt?.toISOString() ?? null,
  };
}

export function mailDomainRoutes(deps: MailDomainRouteDeps): RouteDef[] {
  const { domains } = deps;
  const recordsOf = (d: MailDomain) =>
    domainRecords(
      { name: d.name, selector: d.dkimSelector, publicKeyBase64: d.dkimPublicKey },
      deps.domainRecords,
      d.status,
    );
  const view = (d: MailDomain) => mailDomainView(d, recordsOf(d));
  /** The domain and what DNS says of its records: slow, and writes nothing (the verify's `prepare`). */
  async function lookUp(productId: string, id: string) {
    const domain = found(await domains.get(productId, id));
    return { domain, result: await verifyDomainRecords(recordsOf(domain), deps.dns) };
  }

  const found = (d: MailDomain | undefined): MailDomain => {
    if (!d) throw MAIL_ERRORS.domainNotFound();
    return d;
  };

  return [
    {
      ...common,
      method: 'POST',
      path: '/mail/domains',
      operationId: 'mail_domain_create',
      audit: { targetType: 'mail_domain' },
      summary: 'Add a sending domain',
      description:
        'Adds the domain, pending, with a new 2048-bit DKIM key. Publish the answer’s `records` ' +
        '(the DKIM key, and the MX and SPF records of the `send.` subdomain that carries bounces), ' +
        'then call `mail_domain_verify`. 409 `domain_exists` when the product already has it.',
      request: { body: 'mail-domain-create' },
      responses: { 201: 'mail-domain' },
      errors: [MAIL_ERRORS.domainExists('mail.acme.example')],
      async handler(ctx) {
        const body = ctx.body as { name: string; open_tracking: boolean; click_tracking: boolean };
        const name = sendingDomainName(body.name);
        if (name === null) {
          throw validationError([
            {
              path: 'body.name',
              message: `must be a domain name such as mail.example.com, at most ${DOMAIN_NAME_MAX_CHARS} characters`,
            },
          ]);
        }
        const created = await domains.create(principalOf(ctx).productId, {
          name,
          openTracking: body.open_tracking,
          clickTracking: body.click_tracking,
        });
        if (!created) throw MAIL_ERRORS.domainExists(name);
        return { status: 201, body: view(created) };
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/mail/domains',
      operationId: 'mail_domain_list',
      summary: 'List the sending domains',
      description: 'Domains of the product, newest first, with their records.',
      request: { query: 'mail-domain-list-query' },
      responses: { 200: 'mail-domain-list' },
      async handler(ctx) {
        const limit = ctx.query.limit as number;
        const cursor = ctx.query.cursor as string | undefined;
        const rows = await domains.list(principalOf(ctx).productId, {
          limit: limit + 1,
          ...(cursor === undefined ? {} : { afterId: cursor }),
        });
        const shown = rows.slice(0, limit);
        return {
          status: 200,
          body: {
            data: shown.map(view),
            next_cursor: rows.length > limit ? shown[shown.length - 1]!.id : null,
          },
        };
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/mail/domains/:id',
      operationId: 'mail_domain_get',
      summary: 'Get a sending domain',
      description: 'The domain, its status and the records it publishes; 404 `not_found` for an unknown id.',
      request: { params: 'mail-domain-params' },
      responses: { 200: 'mail-domain' },
      errors: [MAIL_ERRORS.domainNotFound()],
      async handler(ctx) {
        const domain = found(await domains.get(principalOf(ctx).productId, ctx.params.id as string));
        return { status: 200, body: view(domain) };
      },
    },
    {
      ...common,
      method: 'PATCH',
      path: '/mail/domains/:id',
      operationId: 'mail_domain_update',
      audit: { targetType: 'mail_domain' },
      summary: 'Switch open and click tracking of a sending domain',
      description:
        'Sets `open_tracking`, `click_tracking` or both (both are off by default); a switch left ' +
        'out keeps its value. Applies to every email accepted after the answer.',
      request: { params: 'mail-domain-params', body: 'mail-domain-update' },
      responses: { 200: 'mail-domain' },
      errors: [MAIL_ERRORS.domainNotFound()],
      async handler(ctx) {
        const body = ctx.body as { open_tracking?: boolean; click_tracking?: boolean };
        const domain = found(
          await domains.updateTracking(principalOf(ctx).productId, ctx.params.id as string, {
            ...(body.open_tracking === undefined ? {} : { openTracking: body.open_tracking }),
            ...(body.click_tracking === undefined ? {} : { clickTracking: body.click_tracking }),
          }),
        );
        return { status: 200, body: view(domain) };
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/mail/domains/:id/verify',
      operationId: 'mail_domain_verify',
      audit: {
        targetType: 'mail_domain',
        prepare: (ctx) => lookUp(principalOf(ctx).productId, ctx.params.id as string),
        targets: (ctx) => [{ id: ctx.params.id as string, changes: ['status'] }],
      },
      summary: 'Verify a sending domain’s DNS records',
      description:
        'Looks every record up in DNS at once. The domain becomes `verified` when each resolves to ' +
        'its value (for SPF: the name’s one `v=spf1` record has the `include:`), else `pending`, ' +
        'also when it was verified before; each record’s `status` says which did not resolve. ' +
        'A DNS failure or timeout leaves records pending; it is not an error.',
      request: { params: 'mail-domain-params' },
      responses: { 200: 'mail-domain' },
      errors: [MAIL_ERRORS.domainNotFound()],
      async handler(ctx) {
        const { productId } = principalOf(ctx);
        const id = ctx.params.id as string;
        const { result } =
          (ctx.prepared as Awaited<ReturnType<typeof lookUp>> | undefined) ?? (await lookUp(productId, id));
        const recorded = found(await domains.recordVerification(productId, id, result.verified));
        return { status: 200, body: mailDomainView(recorded, result.records) };
      },
    },
    {
      ...common,
      method: 'DELETE',
      path: '/mail/domains/:id',
      operationId: 'mail_domain_delete',
      audit: { targetType: 'mail_domain' },
      summary: 'Delete a sending domain',
      description:
        'Removes the domain and its DKIM key: its addresses can no longer send. 409 `domain_in_use` ' +
        'while a mail API key is locked to it (deleting would unlock that key): delete the key first.',
      request: { params: 'mail-domain-params' },
      responses: { 204: { description: 'Deleted' } },
      errors: [MAIL_ERRORS.domainNotFound(), MAIL_ERRORS.domainInUse()],
      async handler(ctx) {
        const outcome = await domains.delete(principalOf(ctx).productId, ctx.params.id as string);
        if (outcome === 'not_found') throw MAIL_ERRORS.domainNotFound();
        if (outcome === 'in_use') throw MAIL_ERRORS.domainInUse();
        return { status: 204 };
      },
    },
  ];
}
