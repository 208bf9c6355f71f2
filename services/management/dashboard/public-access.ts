// Settings → Public Access: sign in with a member token, then list, create, re-scope, revoke and
// import the product's public keys through the management API (decisions.md "Agent tools and
// the dashboard"). Bundled by the management server with esbuild; no framework, no inline script.
import { type Api, ApiProblem, createApi } from './api-client.ts';
import type { PublicKeyView, Role } from './api-types.ts';
import { createCreateKeyForm } from './create-key.ts';
import { byId } from './dom.ts';
import { createEditScopeDialog } from './edit-scope-dialog.ts';
import { type RowActions, renderKeyRows } from './key-table.ts';
import { announce, clearProblem, showProblem } from './notices.ts';
import { createRevokeDialog } from './revoke-dialog.ts';
import { sessionToken } from './session-token.ts';

const MANAGER_ROLES: readonly Role[] = ['owner', 'admin'];

const signInSection = byId('sign-in', HTMLElement);
const signInForm = byId('sign-in-form', HTMLFormElement);
const tokenInput = byId('token', HTMLInputElement);
const signInButton = signInForm.querySelector<HTMLButtonElement>('button[type="submit"]')!;
const workspace = byId('workspace', HTMLElement);
const sessionBar = byId('session-bar', HTMLElement);
const productName = byId('product-name', HTMLElement);
const roleName = byId('role-name', HTMLElement);
const pageTitle = byId('page-title', HTMLElement);
const pageError = byId('page-error', HTMLElement);
const pageStatus = byId('page-status', HTMLElement);
const readOnlyNote = byId('read-only-note', HTMLElement);
const keysTitle = byId('keys-title', HTMLElement);
const keyRows = byId('key-rows', HTMLTableSectionElement);
const actionsColumn = byId('actions-col', HTMLTableCellElement);
const loadMore = byId('load-more', HTMLButtonElement);
const createSection = byId('create', HTMLElement);
const importSection = byId('import', HTMLElement);

/** The signed-in session; null while signed out. */
let session: { api: Api; canManage: boolean } | null = null;
let keys: PublicKeyView[] = [];
let nextCursor: string | null = null;

function currentApi(): Api {
  if (!session) throw new ApiProblem(401, 'signed_out', 'You are signed out. Sign in again.');
  return session.api;
}

/**
 * Runs an API call of the signed-in page. A 401 means the token stopped working (revoked, or the
 * member removed): the page signs out and says why, rather than showing a list it cannot keep.
 */
async function guarded<T>(call: (api: Api) => Promise<T>): Promise<T> {
  try {
    return await call(currentApi());
  } catch (err) {
    if (err instanceof ApiProblem && err.status === 401) signOut(err);
    throw err;
  }
}

const rowActions: RowActions = {
  editScope: (key, opener) => editScopeDialog.open(key, opener),
  revoke: (key, opener) => revokeDialog.open(key, opener),
};

function render(): void {
  renderKeyRows(keyRows, keys, session?.canManage ? rowActions : null);
  loadMore.hidden = nextCursor === null;
}

function replaceKey(updated: PublicKeyView): void {
  keys = keys.map((k) => (k.id === updated.id ? updated : k));
  render();
}

async function loadFirstPage(): Promise<void> {
  const page = await guarded((api) => api.listKeys(null));
  keys = page.data;
  nextCursor = page.next_cursor;
  render();
}

const createForm = createCreateKeyForm({
  call: guarded,
  status: pageStatus,
  created: () => loadFirstPage(),
});

const revokeDialog = createRevokeDialog({
  async revoke(key) {
    const revoked = await guarded((api) => api.revoke(key.id));
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
    const updated = await guarded((api) => api.updateScope(key.id, scope));
    replaceKey(updated);
    announce(pageStatus, `Scope of “${updated.name}” saved. The edge applies it within about 30 seconds.`);
  },
  fallbackFocus: () => keysTitle,
});

function showSignedOut(): void {
  session = null;
  keys = [];
  nextCursor = null;
  keyRows.replaceChildren();
  revokeDialog.close();
  editScopeDialog.close();
  createForm.reset();
  workspace.hidden = true;
  sessionBar.hidden = true;
  productName.textContent = '';
  roleName.textContent = '';
  signInSection.hidden = false;
}

function signOut(reason?: ApiProblem): void {
  sessionToken.clear();
  showSignedOut();
  tokenInput.value = '';
  if (reason) showProblem(pageError, reason);
  announce(pageStatus, reason ? '' : 'Signed out.');
  tokenInput.focus();
}

/** Checks the token with GET /organization/product; only a token the API accepted is kept. */
async function signIn(token: string): Promise<void> {
  const api = createApi(token);
  const product = await api.product();
  const role = product.caller.role;
  const canManage = role !== null && MANAGER_ROLES.includes(role);
  sessionToken.save(token);
  session = { api, canManage };
  productName.textContent = product.name;
  roleName.textContent = role ?? product.caller.credential_kind;
  sessionBar.hidden = false;
  signInSection.hidden = true;
  workspace.hidden = false;
  readOnlyNote.hidden = canManage;
  actionsColumn.hidden = !canManage;
  createSection.hidden = !canManage;
  importSection.hidden = !canManage;
  await loadFirstPage();
}

signInForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  const token = tokenInput.value.trim();
  if (token === '' || signInButton.disabled) return;
  signInButton.disabled = true;
  clearProblem(pageError);
  announce(pageStatus, 'Signing in…');
  try {
    await signIn(token);
    tokenInput.value = '';
    announce(pageStatus, '');
    pageTitle.focus();
  } catch (err) {
    // Stay signed out: nothing of a refused token is kept.
    sessionToken.clear();
    showSignedOut();
    announce(pageStatus, '');
    showProblem(pageError, err);
    tokenInput.focus();
  } finally {
    signInButton.disabled = false;
  }
});

byId('sign-out', HTMLButtonElement).addEventListener('click', () => {
  clearProblem(pageError);
  signOut();
});

loadMore.addEventListener('click', async () => {
  if (nextCursor === null || loadMore.disabled) return;
  loadMore.disabled = true;
  clearProblem(pageError);
  try {
    const page = await guarded((api) => api.listKeys(nextCursor));
    keys = [...keys, ...page.data];
    nextCursor = page.next_cursor;
    render();
  } catch (err) {
    showProblem(pageError, err);
  } finally {
    loadMore.disabled = false;
  }
});

for (const toolkit of ['mail', 'realtime'] as const) {
  const button = byId(`import-${toolkit}`, HTMLButtonElement);
  button.addEventListener('click', async () => {
    if (button.disabled) return;
    button.disabled = true;
    clearProblem(pageError);
    try {
      const { data } = await guarded((api) => api.importKeys(toolkit));
      announce(
        pageStatus,
        data.length === 0
          ? `No ${toolkit} keys to import: every active one is in the list already.`
          : `Imported ${data.length} ${toolkit} key${data.length === 1 ? '' : 's'}.`,
      );
      await loadFirstPage();
    } catch (err) {
      showProblem(pageError, err);
    } finally {
      button.disabled = false;
    }
  });
}

// A reload in the same tab resumes the session; a token the API no longer takes is dropped.
const kept = sessionToken.read();
if (kept === null) {
  showSignedOut();
} else {
  announce(pageStatus, 'Signing in…');
  signIn(kept)
    .then(() => announce(pageStatus, ''))
    .catch((err: unknown) => {
      sessionToken.clear();
      showSignedOut();
      announce(pageStatus, '');
      showProblem(pageError, err);
    });
}
