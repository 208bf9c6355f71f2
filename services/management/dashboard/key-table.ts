// The key list: one row per key with its name (and the Imported badge), the eight visible
// characters, what it reaches, environment, creation date and status. Owners and admins get
// Edit scope and Revoke on active rows; members get no action column at all.
import type { PublicKeyView } from './api-types.ts';
import { dayTime } from './dates.ts';
import { h } from './dom.ts';
import { describeReach } from './scope-options.ts';

export interface RowActions {
  editScope(key: PublicKeyView, opener: HTMLButtonElement): void;
  revoke(key: PublicKeyView, opener: HTMLButtonElement): void;
}

function nameCell(key: PublicKeyView): HTMLTableCellElement {
  return h(
    'th',
    { scope: 'row' },
    h('span', { class: 'key-name' }, key.name),
    key.imported &&
      h(
        'span',
        { class: 'badge imported', title: `Imported from the ${key.imported_from ?? 'toolkit'} API keys` },
        'Imported',
      ),
  );
}

function reachCell(key: PublicKeyView): HTMLTableCellElement {
  const reach = describeReach(key.scope, key.toolkits);
  return h(
    'td',
    {},
    h('span', { class: 'toolkits' }, reach.toolkits),
    h(
      'span',
      { class: 'reach-detail' },
      key.scope.kind === 'route' ? h('code', {}, reach.detail) : reach.detail,
    ),
  );
}

function statusCell(key: PublicKeyView): HTMLTableCellElement {
  if (key.status === 'active') return h('td', {}, h('span', { class: 'badge active' }, 'Active'));
  return h(
    'td',
    {},
    h('span', { class: 'badge revoked' }, 'Revoked'),
    key.revoked_at && h('span', { class: 'reach-detail' }, dayTime(key.revoked_at)),
  );
}

function actionsCell(key: PublicKeyView, actions: RowActions): HTMLTableCellElement {
  if (key.status !== 'active') return h('td', {});
  // The accessible names carry the key's name, so a screen reader's button list says which row.
  const edit = h('button', { type: 'button', 'aria-label': `Edit scope of ${key.name}` }, 'Edit scope');
  const revoke = h(
    'button',
    { type: 'button', class: 'danger', 'aria-label': `Revoke ${key.name}` },
    'Revoke',
  );
  edit.addEventListener('click', () => actions.editScope(key, edit));
  revoke.addEventListener('click', () => actions.revoke(key, revoke));
  return h('td', { class: 'row-actions' }, edit, revoke);
}

export function keyRow(key: PublicKeyView, actions: RowActions | null): HTMLTableRowElement {
  return h(
    'tr',
    { 'data-key-id': key.id, class: key.status === 'revoked' ? 'is-revoked' : undefined },
    nameCell(key),
    h('td', {}, h('code', { class: 'key-prefix' }, `${key.prefix}${key.visible}…`)),
    reachCell(key),
    h('td', {}, key.environment),
    h('td', {}, dayTime(key.created_at)),
    statusCell(key),
    actions && actionsCell(key, actions),
  );
}

/** Replaces the rows; `actions` null: a member's read-only list. */
export function renderKeyRows(
  tbody: HTMLTableSectionElement,
  keys: readonly PublicKeyView[],
  actions: RowActions | null,
): void {
  if (keys.length === 0) {
    tbody.replaceChildren(
      h('tr', {}, h('td', { colspan: actions ? '7' : '6', class: 'empty' }, 'No public keys yet.')),
    );
    return;
  }
  tbody.replaceChildren(...keys.map((k) => keyRow(k, actions)));
}
