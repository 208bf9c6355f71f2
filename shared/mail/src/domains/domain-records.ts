// The DNS records a sending domain publishes (decisions.md "Mail (interfaces)"), as a pure
// function of the domain, its DKIM selector and public key, and the deployment's settings:
//   TXT <selector>._domainkey.<domain>  the DKIM public key every message is signed against
//   MX  send.<domain>                   routes DSN bounces to the VERP return path to our receiver
//   TXT send.<domain>                   SPF of the envelope sender domain (MAIL FROM)
// The header From domain itself needs no record of ours: alignment is through DKIM (d=<domain>).
import { returnPathDomain } from '../return-path.ts';

export type RecordStatus = 'pending' | 'verified';

/** Which rule verifies a record; internal, not part of the API answer. */
export type DomainRecordKind = 'dkim' | 'spf' | 'return_path_mx';

export interface DomainRecord {
  kind: DomainRecordKind;
  type: 'TXT' | 'MX';
  /** Fully qualified, lower-case, no trailing dot. */
  name: string;
  /** One unquoted string, never split (a DNS host splits a long TXT value into strings). */
  value: string;
  /** MX only. */
  priority?: number;
  status: RecordStatus;
}

/** From `config.mail` (MAIL_RETURN_PATH_MX, MAIL_SPF_INCLUDE). */
export interface DomainRecordSettings {
  /** The inbound bounce receiver's public host name. */
  returnPathMx: string;
  /** The SPF record a return-path domain includes (the smart hosts' sending addresses). */
  spfInclude: string;
}

export const RETURN_PATH_MX_PRIORITY = 10;

/** `v=DKIM1; k=rsa; p=<base64>`: the value of the DKIM TXT record. */
export function dkimRecordValue(publicKeyBase64: string): string {
  return `v=DKIM1; k=rsa; p=${publicKeyBase64}`;
}

export function dkimRecordName(selector: string, domain: string): string {
  return `${selector}._domainkey.${domain}`;
}

/** The records of a domain, each with `status` (default pending; the domain's when it is known). */
export function domainRecords(
  domain: { name: string; selector: string; publicKeyBase64: string },
  settings: DomainRecordSettings,
  status: RecordStatus = 'pending',
): DomainRecord[] {
  const returnPath = returnPathDomain(domain.name);
  return [
    {
      kind: 'dkim',
      type: 'TXT',
      name: dkimRecordName(domain.selector, domain.name),
      value: dkimRecordValue(domain.publicKeyBase64),
      status,
    },
    {
      kind: 'return_path_mx',
      type: 'MX',
      name: returnPath,
      value: hostName(settings.returnPathMx),
      priority: RETURN_PATH_MX_PRIORITY,
      status,
    },
    {
      kind: 'spf',
      type: 'TXT',
      name: returnPath,
      value: `v=spf1 include:${hostName(settings.spfInclude)} ~all`,
      status,
    },
  ];
}

/** Lower-case, no trailing dot: how names are shown and compared. */
export function hostName(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}
