// The caller's own member tokens: name (and "this page" on the token the page signed in with),
// the eight visible characters, when created and last used, status, and Revoke on active rows.
import type { MemberTokenView } from './api-types.ts';
import { dayTime } from './dates.ts';
import { h } from './dom.ts';

/** Whether this is the token the page is signed in with (its visible characters, still active). */
export function isTokenInUse(token: MemberTokenView, tokenVisible: string): boolean {
  return token.status === 'active' && token.visible === tokenVisible;
}

export function tokenRow(
  token: MemberTokenView,
  tokenVisible: string,
  revoke: (token: MemberTokenView, opener: HTMLButtonElement) => void,
): HTMLTableRowElement {
  const active = token.status === 'active';
  const actions = h('td', { class: 'row-actions' });
  if (active) {
    const button = h(
      'button',
      { type: 'button', class: 'danger', 'aria-label': `Revoke token ${token.name}` },
      'Revoke',
    );
    button.addEventListener('click', () => revoke(token, button));
    actions.append(button);
  }
  return h(
    'tr',
    { 'data-token-id': token.id, class: active ? undefined : 'is-revoked' },
    h(
      'th',
      { scope: 'row' },
      h('span', { class: 'key-name' }, token.name),
      isTokenInUse(token, tokenVisible) && h('span', { class: 'badge you' }, 'this page'),
    ),
    h('td', {}, h('code', { class: 'key-prefix' }, `${token.prefix}${token.visible}…`)),
    h('td', {}, dayTime(token.created_at)),
    h('td', {}, token.last_used_at === null ? 'Never' : dayTime(token.last_used_at)),
    h(
      'td',
      {},
      active
        ? h('span', { class: 'badge active' }, 'Active')
        : h('span', { class: 'badge revoked' }, 'Revoked'),
    ),
    actions,
  );
}

export function renderTokenRows(
  tbody: HTMLTableSectionElement,
  tokens: readonly MemberTokenView[],
  tokenVisible: string,
  revoke: (token: MemberTokenView, opener: HTMLButtonElement) => void,
): void {
  if (tokens.length === 0) {
    tbody.replaceChildren(h('tr', {}, h('td', { colspan: '6', class: 'empty' }, 'You have no tokens.')));
    return;
  }
  tbody.replaceChildren(...tokens.map((t) => tokenRow(t, tokenVisible, revoke)));
}
