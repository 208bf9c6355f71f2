// Sending domains in PostgreSQL (mail_domains). The DKIM private key is sealed with the
// platform's keyring (purpose `mail-dkim`) and opened only by signingKey(), whose opened keys
// are cached per domain id and selector (a new selector after a rotation is a new entry).
import {
  type Clock,
  isUuid,
  newId,
  openSecret,
  type SecretKeyring,
  sealSecret,
  systemClock,
} from '@lattice/core';
import type { DbExecutor } from '@lattice/store';
import { DKIM_SEAL_PURPOSE, dkimSelectorFor, generateDkimKeyPair } from './dkim-key.ts';
import type { DomainStatus, DomainStore, MailDomain } from './domain-store.ts';

const TABLE = 'mail_domains';
const COLUMNS = [
  'id',
  'product_id',
  'name',
  'status',
  'open_tracking',
  'click_tracking',
  'dkim_selector',
  'dkim_public_key',
  'created_at',
  'verified_at',
];
/** Opened private keys kept; beyond it the oldest is dropped (a domain's key opens again). */
const KEY_CACHE_MAX = 10_000;

interface Row {
  id: string;
  product_id: string;
  name: string;
  status: DomainStatus;
  open_tracking: boolean;
  click_tracking: boolean;
  dkim_selector: string | null;
  dkim_public_key: string | null;
  created_at: Date;
  verified_at: Date | null;
}

function toDomain(r: Row & { dkim_selector: string; dkim_public_key: string }): MailDomain {
  return {
    id: r.id,
    productId: r.product_id,
    name: r.name,
    status: r.status,
    openTracking: r.open_tracking,
    clickTracking: r.click_tracking,
    dkimSelector: r.dkim_selector,
    dkimPublicKey: r.dkim_public_key,
    createdAt: r.created_at,
    verifiedAt: r.verified_at,
  };
}

export interface PostgresDomainStoreOptions {
  keyring: SecretKeyring;
  /** Dates new selectors; default the system clock. */
  clock?: Clock;
}

export function createPostgresDomainStore(db: DbExecutor, opts: PostgresDomainStoreOptions): DomainStore {
  const { keyring } = opts;
  const clock = opts.clock ?? systemClock;
  const openedKeys = new Map<string, string>();
  /** Key creation in flight per domain, so one process makes one key per domain. */
  const keying = new Map<string, Promise<Row | undefined>>();

  async function newKeyColumns() {
    const pair = await generateDkimKeyPair();
    return {
      dkim_selector: dkimSelectorFor(clock.nowMs()),
      dkim_private_key_sealed: sealSecret(keyring, DKIM_SEAL_PURPOSE, pair.privateKeyPem),
      dkim_public_key: pair.publicKeyBase64,
    };
  }

  /**
   * Gives a row without a key one. The update only applies while the row still has none, so of
   * several processes racing, one key wins and the others read it back.
   */
  function ensureKey(row: Row): Promise<Row | undefined> {
    if (row.dkim_selector !== null) return Promise.resolve(row);
    let pending = keying.get(row.id);
    if (!pending) {
      pending = (async () => {
        const [updated] = (await db(TABLE)
          .where({ id: row.id })
          .whereNull('dkim_selector')
          .update({
            ...(await newKeyColumns()),
            // A domain verified without a key is one `lattice bootstrap` marked verified.
            verified_at: db.raw("case when status = 'verified' then coalesce(verified_at, created_at) end"),
            updated_at: db.fn.now(),
          })
          .returning(COLUMNS)) as Row[];
        return updated ?? ((await db(TABLE).where({ id: row.id }).first(COLUMNS)) as Row | undefined);
      })().finally(() => keying.delete(row.id));
      keying.set(row.id, pending);
    }
    return pending;
  }

  /** The domain of a row read from the table, keyed first when needed; undefined when deleted meanwhile. */
  async function domainOf(row: Row | undefined): Promise<MailDomain | undefined> {
    if (!row) return undefined;
    const keyed = await ensureKey(row);
    return keyed?.dkim_selector && keyed.dkim_public_key
      ? toDomain(keyed as Row & { dkim_selector: string; dkim_public_key: string })
      : undefined;
  }

  const rowById = async (productId: string, id: string) =>
    isUuid(id)
      ? ((await db(TABLE).where({ id, product_id: productId }).first(COLUMNS)) as Row | undefined)
      : undefined;

  const forget = (domainId: string) => {
    for (const key of openedKeys.keys()) if (key.startsWith(`${domainId}/`)) openedKeys.delete(key);
  };

  return {
    async create(productId, input) {
      const [row] = (await db(TABLE)
        .insert({
          id: newId(),
          product_id: productId,
          name: input.name,
          status: 'pending',
          open_tracking: input.openTracking,
          click_tracking: input.clickTracking,
          ...(await newKeyColumns()),
        })
        .onConflict(['product_id', 'name'])
        .ignore()
        .returning(COLUMNS)) as Row[];
      return domainOf(row);
    },

    async list(productId, page) {
      const q = db(TABLE)
        .where({ product_id: productId })
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(page.limit)
        .select(COLUMNS);
      if (page.afterId !== undefined) {
        if (!isUuid(page.afterId)) return [];
        q.whereRaw(
          `(created_at, id) < (select created_at, id from ${TABLE} where id = ? and product_id = ?)`,
          [page.afterId, productId],
        );
      }
      const domains = await Promise.all(((await q) as Row[]).map(domainOf));
      return domains.filter((d): d is MailDomain => d !== undefined);
    },

    async get(productId, id) {
      return domainOf(await rowById(productId, id));
    },

    async updateTracking(productId, id, changes) {
      if (!isUuid(id)) return undefined;
      const [row] = (await db(TABLE)
        .where({ id, product_id: productId })
        .update({
          ...(changes.openTracking === undefined ? {} : { open_tracking: changes.openTracking }),
          ...(changes.clickTracking === undefined ? {} : { click_tracking: changes.clickTracking }),
          updated_at: db.fn.now(),
        })
        .returning(COLUMNS)) as Row[];
      return domainOf(row);
    },

    async recordVerification(productId, id, verified) {
      if (!isUuid(id)) return undefined;
      const [row] = (await db(TABLE)
        .where({ id, product_id: productId })
        .update({
          status: verified ? 'verified' : 'pending',
          verified_at: verified
            ? db.raw(
                "case when status = 'verified' and verified_at is not null then verified_at else now() end",
              )
            : null,
          updated_at: db.fn.now(),
        })
        .returning(COLUMNS)) as Row[];
      return domainOf(row);
    },

    async delete(productId, id) {
      if (!isUuid(id)) return 'not_found';
      const outcome = await db.transaction(async (trx) => {
        // The row lock makes a mail key being locked to the domain meanwhile either commit
        // first (and be seen below) or wait for the delete and then fail its foreign key.
        const row = await trx(TABLE).where({ id, product_id: productId }).forUpdate().first('id');
        if (!row) return 'not_found' as const;
        const lockedKey = await trx('mail_api_keys')
          .where({ domain_id: id })
          .whereNull('deleted_at')
          .first('id');
        if (lockedKey) return 'in_use' as const;
        await trx(TABLE).where({ id }).delete();
        return 'deleted' as const;
      });
      if (outcome === 'deleted') forget(id);
      return outcome;
    },

    async verifiedDomainByName(productId, name) {
      const row = (await db(TABLE)
        .where({
          product_id: productId,
          name: name.trim().toLowerCase().replace(/\.$/, ''),
          status: 'verified',
        })
        .first('id', 'name', 'open_tracking', 'click_tracking')) as
        | Pick<Row, 'id' | 'name' | 'open_tracking' | 'click_tracking'>
        | undefined;
      return row
        ? { id: row.id, name: row.name, openTracking: row.open_tracking, clickTracking: row.click_tracking }
        : undefined;
    },

    async signingKey(productId, domainId) {
      if (!isUuid(domainId)) return undefined;
      const read = async () =>
        (await db(TABLE)
          .where({ id: domainId, product_id: productId })
          .first('name', 'dkim_selector', 'dkim_private_key_sealed')) as
          | { name: string; dkim_selector: string | null; dkim_private_key_sealed: string | null }
          | undefined;
      let row = await read();
      if (row && row.dkim_selector === null) {
        const full = await rowById(productId, domainId);
        if (full) await ensureKey(full);
        row = await read();
      }
      if (!row?.dkim_selector || !row.dkim_private_key_sealed) return undefined;
      const cacheKey = `${domainId}/${row.dkim_selector}`;
      let privateKey = openedKeys.get(cacheKey);
      if (privateKey === undefined) {
        privateKey = openSecret(keyring, DKIM_SEAL_PURPOSE, row.dkim_private_key_sealed);
        if (openedKeys.size >= KEY_CACHE_MAX) openedKeys.delete(openedKeys.keys().next().value!);
        openedKeys.set(cacheKey, privateKey);
      }
      return { domainName: row.name, keySelector: row.dkim_selector, privateKey };
    },

    async ensureKeys(productId) {
      const rows = (await db(TABLE)
        .where({ product_id: productId })
        .whereNull('dkim_selector')
        .select(COLUMNS)) as Row[];
      const keyed = await Promise.all(rows.map(ensureKey));
      return keyed.filter((r) => r !== undefined).length;
    },
  };
}
