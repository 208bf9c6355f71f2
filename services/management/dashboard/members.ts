// Settings → Members: sign in with a member token (the same session as Public Access), then the
// product's members and their roles, your own tokens and, for owners and admins, adding members,
// changing roles, removing members and the audit log, all through the management API
// (docs/organization.md). Only what the caller's role may do is shown; the API decides every call.
// Bundled by the management server with esbuild; no framework, no inline script.
import { createAddMemberForm } from './add-member.ts';
import type { MemberView, Role } from './api-types.ts';
import { createAuditLog } from './audit-log.ts';
import { createConfirmDialog } from './confirm-dialog.ts';
import { formatDay } from './dates.ts';
import { byId } from './dom.ts';
import { type MemberPermissions, permissionsOf } from './member-permissions.ts';
import { type MemberRowActions, renderMemberRows } from './member-table.ts';
import { announce, clearProblem, showProblem } from './notices.ts';
import { createOwnTokens } from './own-tokens.ts';
import { createPagedList } from './paged-list.ts';
import { createSignIn, type SignedIn } from './sign-in.ts';

const pageError = byId('page-error', HTMLElement);
const pageStatus = byId('page-status', HTMLElement);
const workspace = byId('workspace', HTMLElement);
const tokenInput = byId('token', HTMLInputElement);
const readOnlyNote = byId('read-only-note', HTMLElement);
const membersTitle = byId('members-title', HTMLElement);
const actionsColumn = byId('member-actions-col', HTMLTableCellElement);

/** The signed-in caller; null while signed out. */
let caller: { memberId: string | null; permissions: MemberPermissions } | null = null;

/** Focus after a dialog whose opener is gone; the sign-in field once the page signed out. */
const fallbackFocus = () => (workspace.hidden ? tokenInput : membersTitle);

const session = createSignIn({ enter, leave });

const rowActions: MemberRowActions = {
  permissions: permissionsOf(null),
  saveRole: (member, role, opener) => void saveRole(member, role, opener),
  remove: (member, opener) => removeDialog.open(member, opener),
};

const members = createPagedList<MemberView>({
  rows: byId('member-rows', HTMLTableSectionElement),
  loadMore: byId('load-more-members', HTMLButtonElement),
  pageError,
  fetch: (cursor) => session.call((api) => api.listMembers(cursor)),
  draw(rows, items) {
    const manages = caller?.permissions.manages === true;
    renderMemberRows(rows, items, caller?.memberId ?? null, manages ? rowActions : null);
    // The audit log names the members listed here.
    auditLog.redraw();
  },
});

const auditLog = createAuditLog({
  call: session.call,
  names: (memberId) => members.items.find((m) => m.id === memberId)?.name,
  pageError,
});

const addMember = createAddMemberForm({
  call: session.call,
  status: pageStatus,
  async added() {
    await members.loadFirst();
    await auditLog.reload();
  },
});

const ownTokens = createOwnTokens({
  call: session.call,
  status: pageStatus,
  pageError,
  changed: () => auditLog.reload(),
  signOut: (message) => session.signOut(message),
  fallbackFocus,
});

async function saveRole(member: MemberView, role: Role, opener: HTMLButtonElement): Promise<void> {
  if (opener.disabled) return;
  opener.disabled = true;
  clearProblem(pageError);
  try {
    const updated = await session.call((api) => api.updateMemberRole(member.id, role));
    members.items = members.items.map((m) => (m.id === updated.id ? updated : m));
    announce(pageStatus, `${updated.name} is now ${updated.role}.`);
    // Your own role changed: what the page offers changes with it.
    if (updated.id === caller?.memberId) await session.refresh();
    else members.render();
    await auditLog.reload();
  } catch (err) {
    showProblem(pageError, err);
    // The row goes back to the role the member still has.
    members.render();
  }
}

const removeDialog = createConfirmDialog<MemberView>('remove', {
  describe: (member) => ({
    name: member.name,
    summary: `${member.role} · added ${formatDay(member.created_at)}`,
    note: member.id === caller?.memberId ? 'This is you: this page signs out once you are removed.' : null,
  }),
  async confirm(member) {
    await session.call((api) => api.removeMember(member.id));
    if (member.id === caller?.memberId) {
      session.signOut(`You removed yourself from the product, so this page signed out.`);
      return;
    }
    members.items = members.items.filter((m) => m.id !== member.id);
    members.render();
    announce(pageStatus, `${member.name} removed. Their tokens stopped working.`);
    await auditLog.reload();
  },
  fallbackFocus,
});

async function enter({ product, tokenVisible }: SignedIn): Promise<void> {
  const permissions = permissionsOf(product.caller.role);
  caller = { memberId: product.caller.member_id ?? null, permissions };
  rowActions.permissions = permissions;
  readOnlyNote.hidden = permissions.manages;
  actionsColumn.hidden = !permissions.manages;
  addMember.enter(permissions.assignable);
  await Promise.all([
    members.loadFirst(),
    ownTokens.enter(tokenVisible),
    permissions.manages ? auditLog.enter() : auditLog.leave(),
  ]);
}

function leave(): void {
  caller = null;
  members.clear();
  removeDialog.close();
  addMember.leave();
  ownTokens.leave();
  auditLog.leave();
}

session.start();
