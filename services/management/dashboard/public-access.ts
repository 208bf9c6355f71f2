// Settings → Public Access: sign in with a member token (sign-in.ts, the same session as
// Members), then list, create, re-scope, revoke and import the product's public keys through the
// management API (docs/management-api.md, "Dashboard"). Bundled by the management server
// with esbuild; no framework, no inline script.
import type { PublicKeyView, Role } from './api-types.ts';
import { runButtonAction } from './button-action.ts';
import { createCreateKeyForm } from './create-key.ts';
import { byId } from './dom.ts';
import { createEditScopeDialog } from './edit-scope-dialog.ts';
import { type RowActions, renderKeyRows } from './key-table.ts';
import { announce } from './notices.ts';
import { createPagedList } from './paged-list.ts';
import { createRevokeDialog } from './revoke-dialog.ts';
import { createSignIn, type SignedIn } from './sign-in.ts';

const MANAGER_ROLES: readonly Role[] = ['owner', 'admin'];

const pageError = byId('page-error', HTMLElement);
const pageStatus = byId('page-status', HTMLElement);
const readOnlyNote = byId('read-only-note', HTMLElement);
const keysTitle = byId('keys-title', HTMLElement);
const actionsColumn = byId('actions-col', HTMLTableCellElement);
const createSection = byId('create', HTMLElement);
const importSection = byId('import', HTMLElement);

/** Whether the signed-in caller may change keys (an owner or an admin); false while signed out. */
let canManage = false;

const session = createSignIn({ enter, leave });

const rowActions: RowActions = {
  editScope: (key, opener) => editScopeDialog.open(key, opener),
  revoke: (key, opener) => revokeDialog.open(key, opener),
};

const keys = createPagedList<PublicKeyView>({
  rows: byId('key-rows', HTMLTableSectionElement),
  loadMore: byId('load-more', HTMLButtonElement),
  pageError,
  fetch: (cursor) => session.call((api) => api.listKeys(cursor)),
  draw: (rows, items) => renderKeyRows(rows, items, canManage ? rowActions : null),
});

function replaceKey(updated: PublicKeyView): void {
  keys.items = keys.items.map((k) => (k.id === updated.id ? updated : k));
  keys.render();
}

const createForm = createCreateKeyForm({
  call: session.call,
  status: pageStatus,
  created: () => keys.loadFirst(),
});

const revokeDialog = createRevokeDialog({
  async revoke(key) {
    const revoked = await session.call((api) => api.revoke(key.id));
    replaceKey(revoked);
    announce(
      pageStatus,
      `Key ${revoked.name} revoked. The edge may accept it for up to about 30 seconds more.`,
    );
  },
  fallbackFocus: () => keysTitle,
});

const editScopeDialog = createEditScopeDialog({
  async save(key, scope) {
    const updated = await session.call((api) => api.updateScope(key.id, scope));
    replaceKey(updated);
    announce(pageStatus, `Scope of “${updated.name}” saved. The edge applies it within about 30 seconds.`);
  },
  fallbackFocus: () => keysTitle,
});

for (const toolkit of ['mail', 'realtime'] as const) {
  const button = byId(`import-${toolkit}`, HTMLButtonElement);
  button.addEventListener('click', () =>
    runButtonAction(button, pageError, async () => {
      const { data } = await session.call((api) => api.importKeys(toolkit));
      announce(
        pageStatus,
        data.length === 0
          ? `No ${toolkit} keys to import: every active one is in the list already.`
          : `Imported ${data.length} ${toolkit} key${data.length === 1 ? '' : 's'}.`,
      );
      await keys.loadFirst();
    }),
  );
}

async function enter({ product }: SignedIn): Promise<void> {
  const role = product.caller.role;
  canManage = role !== null && MANAGER_ROLES.includes(role);
  readOnlyNote.hidden = canManage;
  actionsColumn.hidden = !canManage;
  createSection.hidden = !canManage;
  importSection.hidden = !canManage;
  await keys.loadFirst();
}

function leave(): void {
  canManage = false;
  keys.clear();
  revokeDialog.close();
  editScopeDialog.close();
  createForm.reset();
}

session.start();
