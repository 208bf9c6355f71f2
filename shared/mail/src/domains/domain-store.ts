// Sending domains of a product (table mail_domains) with their DKIM keys. Every domain read
// through the store has a key: one made by `lattice bootstrap --verified-domain` without one
// (@lattice/store cannot make keys) gets it on first read, race-safe.

export type DomainStatus = 'pending' | 'verified';

export interface MailDomain {
  id: string;
  productId: string;
  /** Lower-case, no trailing dot. */
  name: string;
  status: DomainStatus;
  openTracking: boolean;
  clickTracking: boolean;
  /** The selector of the key messages are signed with. */
  dkimSelector: string;
  /** Base64 DER SPKI, the DKIM record's `p=`. */
  dkimPublicKey: string;
  createdAt: Date;
  /** Since when the domain is verified without interruption; null while pending. */
  verifiedAt: Date | null;
}

/** What the sending path needs of a verified domain. */
export interface VerifiedDomain {
  id: string;
  name: string;
  openTracking: boolean;
  clickTracking: boolean;
}

/**
 * What a DKIM signer needs, named as nodemailer's `dkim` option names it: d=, s= and the PKCS#8
 * PEM private key.
 */
export interface SigningKey {
  domainName: string;
  keySelector: string;
  /** PEM. A secret: never logged, never in an answer. */
  privateKey: string;
}

export interface DomainPage {
  /** At most this many rows. */
  limit: number;
  /** Id of the last row of the previous page; rows strictly after it come next. */
  afterId?: string;
}

export type DomainDeleteOutcome = 'deleted' | 'not_found' | 'in_use';

export interface DomainStore {
  /** A new pending domain with a fresh key; undefined when the product has a domain of that name. */
  create(
    productId: string,
    input: { name: string; openTracking: boolean; clickTracking: boolean },
  ): Promise<MailDomain | undefined>;
  /** Newest first (created_at, then id). */
  list(productId: string, page: DomainPage): Promise<MailDomain[]>;
  /** Undefined for an unknown id, another product's, or one that is no uuid. */
  get(productId: string, id: string): Promise<MailDomain | undefined>;
  updateTracking(
    productId: string,
    id: string,
    changes: { openTracking?: boolean; clickTracking?: boolean },
  ): Promise<MailDomain | undefined>;
  /** Verified: status verified (verified_at kept if it was already); else pending, verified_at null. */
  recordVerification(productId: string, id: string, verified: boolean): Promise<MailDomain | undefined>;
  /** `in_use` while an active mail key is locked to the domain: deleting would unlock the key. */
  delete(productId: string, id: string): Promise<DomainDeleteOutcome>;
  /** One query; only a domain whose status is verified. `name` is compared lower-cased. */
  verifiedDomainByName(productId: string, name: string): Promise<VerifiedDomain | undefined>;
  /**
   * The key to sign a domain's messages with, whatever the domain's status (the caller decides
   * whether to send). One query; opened keys are cached per domain and selector. Throws
   * SecretKeyError when LATTICE_SECRET_KEYS no longer holds the key it was sealed with.
   */
  signingKey(productId: string, domainId: string): Promise<SigningKey | undefined>;
  /** Gives every domain of the product that has no key one (`lattice bootstrap`); how many got one. */
  ensureKeys(productId: string): Promise<number>;
}
