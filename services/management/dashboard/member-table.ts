// The member list: one row per member with its name (and "you" on the caller's own row), its
// role and when it was added. A caller who manages members gets, on each row its role may touch,
// a role select with a Save button and a Remove button; other rows (an owner, for an admin) show
// the role as text. A `member` caller gets no action column at all.
import type { MemberView, Role } from './api-types.ts';
import { dayTime } from './dates.ts';
import { h } from './dom.ts';
import type { MemberPermissions } from './member-permissions.ts';

export interface MemberRowActions {
  permissions: MemberPermissions;
  saveRole(member: MemberView, role: Role, opener: HTMLButtonElement): void;
  remove(member: MemberView, opener: HTMLButtonElement): void;
}

function roleBadge(role: Role): HTMLElement {
  return h('span', { class: `badge role role-${role}` }, role);
}

/** A select of the roles the caller may give, and Save, enabled once another role is chosen. */
function roleEditor(member: MemberView, actions: MemberRowActions): HTMLElement {
  const select = h(
    'select',
    { 'aria-label': `Role of ${member.name}` },
    ...actions.permissions.assignable.map((role) =>
      h('option', { value: role, selected: role === member.role }, role),
    ),
  );
  const save = h(
    'button',
    { type: 'button', class: 'role-save', disabled: true, 'aria-label': `Save role of ${member.name}` },
    'Save',
  );
  select.addEventListener('change', () => {
    save.disabled = select.value === member.role;
  });
  save.addEventListener('click', () => actions.saveRole(member, select.value as Role, save));
  return h('div', { class: 'role-editor' }, select, save);
}

export function memberRow(
  member: MemberView,
  callerMemberId: string | null,
  actions: MemberRowActions | null,
): HTMLTableRowElement {
  const touchable = actions?.permissions.mayTouch(member) === true;
  let actionCell: HTMLTableCellElement | null = null;
  if (actions) {
    actionCell = h('td', { class: 'row-actions' });
    if (touchable) {
      const remove = h(
        'button',
        { type: 'button', class: 'danger', 'aria-label': `Remove ${member.name}` },
        'Remove',
      );
      remove.addEventListener('click', () => actions.remove(member, remove));
      actionCell.append(remove);
    }
  }
  return h(
    'tr',
    { 'data-member-id': member.id },
    h(
      'th',
      { scope: 'row' },
      h('span', { class: 'key-name' }, member.name),
      member.id === callerMemberId && h('span', { class: 'badge you' }, 'you'),
    ),
    h('td', {}, touchable && actions ? roleEditor(member, actions) : roleBadge(member.role)),
    h('td', {}, dayTime(member.created_at)),
    actionCell,
  );
}

/** Replaces the rows; `actions` null: a member's read-only list. */
export function renderMemberRows(
  tbody: HTMLTableSectionElement,
  members: readonly MemberView[],
  callerMemberId: string | null,
  actions: MemberRowActions | null,
): void {
  if (members.length === 0) {
    tbody.replaceChildren(
      h('tr', {}, h('td', { colspan: actions ? '4' : '3', class: 'empty' }, 'No members.')),
    );
    return;
  }
  tbody.replaceChildren(...members.map((m) => memberRow(m, callerMemberId, actions)));
}
