// The audit log as a table, newest first: when, who (the member's name when the page knows it,
// and which kind of credential acted), the operation (its operationId, as the API and the agent
// tools name it), the target (a listed member by name too), and the names of the changed fields
// (never their values).
import type { AuditEntryView, CredentialKind } from './api-types.ts';
import { h } from './dom.ts';

// Entries come in bursts: the time to the second tells them apart.
const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

const CREDENTIAL_KINDS: Record<CredentialKind, string> = {
  member_token: 'member token',
  mail_key: 'mail API key',
  realtime_key: 'realtime API key',
  cli: 'lattice command line',
};

/** The member names the page knows (removed members are not listed: their id is shown). */
export type MemberNames = (memberId: string) => string | undefined;

function whoCell(entry: AuditEntryView, names: MemberNames): HTMLTableCellElement {
  const { actor } = entry;
  const kind = CREDENTIAL_KINDS[actor.credential_kind] ?? actor.credential_kind;
  let who: Node | string;
  if (actor.member_id !== null) who = names(actor.member_id) ?? h('code', {}, actor.member_id);
  else if (actor.credential_kind === 'cli') who = 'operator';
  else who = actor.credential_id === null ? kind : h('code', {}, actor.credential_id);
  return h('td', {}, h('span', { class: 'toolkits' }, who), h('span', { class: 'reach-detail' }, kind));
}

function targetCell(entry: AuditEntryView, names: MemberNames): HTMLTableCellElement {
  const { type, id } = entry.target;
  // A member the page lists is named; a removed one keeps only its id.
  const name = type === 'member' && id !== null ? names(id) : undefined;
  return h(
    'td',
    {},
    h('span', { class: 'toolkits' }, name === undefined ? type : `${type} ${name}`),
    entry.target.id !== null && h('code', { class: 'reach-detail' }, entry.target.id),
  );
}

function changesCell(entry: AuditEntryView): HTMLTableCellElement {
  if (entry.changes.length === 0) return h('td', { class: 'muted' }, '—');
  return h(
    'td',
    {},
    h('ul', { class: 'changes' }, ...entry.changes.map((field) => h('li', {}, h('code', {}, field)))),
  );
}

export function auditRow(entry: AuditEntryView, names: MemberNames): HTMLTableRowElement {
  return h(
    'tr',
    { 'data-audit-id': entry.id },
    h('td', {}, h('time', { datetime: entry.at, title: entry.at }, timeFormat.format(new Date(entry.at)))),
    whoCell(entry, names),
    h('td', {}, h('code', { class: 'operation' }, entry.operation)),
    targetCell(entry, names),
    changesCell(entry),
  );
}

export function renderAuditRows(
  tbody: HTMLTableSectionElement,
  entries: readonly AuditEntryView[],
  names: MemberNames,
): void {
  if (entries.length === 0) {
    tbody.replaceChildren(h('tr', {}, h('td', { colspan: '5', class: 'empty' }, 'No changes recorded yet.')));
    return;
  }
  tbody.replaceChildren(...entries.map((e) => auditRow(e, names)));
}
