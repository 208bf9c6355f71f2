// `mail_domain_verify`: every record of a domain looked up at once, each judged by its rule
// (record-checks.ts). The domain is verified when all are.
import type { DnsLookup } from './dns-lookup.ts';
import type { DomainRecord } from './domain-records.ts';
import { recordVerified } from './record-checks.ts';

export interface DomainVerification {
  /** The records with the status DNS gave each. */
  records: DomainRecord[];
  verified: boolean;
}

export async function verifyDomainRecords(
  records: readonly DomainRecord[],
  dns: DnsLookup,
): Promise<DomainVerification> {
  // One query per name and type, however many records share it (the SPF and MX records share
  // `send.<domain>` but not a type).
  const queries = new Map<string, Promise<string[]>>();
  const answerOf = (record: DomainRecord) => {
    const key = `${record.type} ${record.name}`;
    let answer = queries.get(key);
    if (!answer) {
      answer = record.type === 'MX' ? dns.mx(record.name) : dns.txt(record.name);
      queries.set(key, answer);
    }
    return answer;
  };
  const checked = await Promise.all(
    records.map(async (record): Promise<DomainRecord> => {
      const ok = recordVerified(record, await answerOf(record));
      return { ...record, status: ok ? 'verified' : 'pending' };
    }),
  );
  return { records: checked, verified: checked.every((r) => r.status === 'verified') };
}
