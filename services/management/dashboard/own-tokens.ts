// "Your tokens": the signed-in member's own tokens (every role may list, create and revoke its
// own). A new token is shown once with Copy; revoking asks first, and revoking the token this page
// signed in with signs the page out, since its next call would be refused anyway.
import type { Api } from './api-client.ts';
import type { MemberTokenView } from './api-types.ts';
import { onSubmit } from './button-action.ts';
import { createConfirmDialog } from './confirm-dialog.ts';
import { byId } from './dom.ts';
import { announce, clearProblem } from './notices.ts';
import { createPagedList } from './paged-list.ts';
import { createSecretPanel } from './secret-once.ts';
import { isTokenInUse, renderTokenRows } from './token-table.ts';

export interface OwnTokens {
  /** Loads the first page for the session that signs in with the token of these visible characters. */
  enter(tokenVisible: string): Promise<void>;
  leave(): void;
}

export function createOwnTokens(deps: {
  call<T>(fn: (api: Api) => Promise<T>): Promise<T>;
  status: HTMLElement;
  /** Where a refused Load more is shown. */
  pageError: HTMLElement;
  /** After a token was created or revoked (the audit log has a new entry). */
  changed(): Promise<void>;
  /** The page's own token was revoked. */
  signOut(message: string): void;
  /** Where focus goes when a dialog's opener is gone. */
  fallbackFocus(): HTMLElement;
}): OwnTokens {
  const form = byId('token-form', HTMLFormElement);
  const name = byId('token-name', HTMLInputElement);
  const error = byId('token-error', HTMLElement);
  let tokenVisible = '';

  const panel = createSecretPanel('new-token', { status: deps.status, noun: 'Token', afterDone: () => name });
  const tokens = createPagedList<MemberTokenView>({
    rows: byId('token-rows', HTMLTableSectionElement),
    loadMore: byId('load-more-tokens', HTMLButtonElement),
    pageError: deps.pageError,
    fetch: (cursor) => deps.call((api) => api.listOwnTokens(cursor)),
    draw: (rows, items) =>
      renderTokenRows(rows, items, tokenVisible, (token, opener) => revokeDialog.open(token, opener)),
  });

  const revokeDialog = createConfirmDialog<MemberTokenView>('revoke-token', {
    describe: (token) => ({
      name: token.name,
      summary: `${token.prefix}${token.visible}…`,
      note: isTokenInUse(token, tokenVisible)
        ? 'This page is signed in with this token: revoking it signs the page out.'
        : null,
    }),
    async confirm(token) {
      const inUse = isTokenInUse(token, tokenVisible);
      const revoked = await deps.call((api) => api.revokeToken(token.id));
      if (inUse) {
        deps.signOut(`Token “${revoked.name}” revoked. This page signed in with it, so it signed out.`);
        return;
      }
      tokens.items = tokens.items.map((t) => (t.id === revoked.id ? revoked : t));
      tokens.render();
      announce(deps.status, `Token “${revoked.name}” revoked. It stops working at once.`);
      await deps.changed();
    },
    fallbackFocus: deps.fallbackFocus,
  });

  onSubmit(form, error, async () => {
    // The name goes as typed: the API decides what a valid name is and says so.
    const created = await deps.call((api) => api.createOwnToken(name.value));
    name.value = '';
    panel.show(created.name, created.token);
    announce(deps.status, `Token “${created.name}” created. Copy it now: it is shown only once.`);
    await tokens.loadFirst();
    await deps.changed();
  });

  return {
    async enter(visible) {
      tokenVisible = visible;
      await tokens.loadFirst();
    },
    leave() {
      tokens.clear();
      tokenVisible = '';
      revokeDialog.close();
      panel.forget();
      name.value = '';
      clearProblem(error);
    },
  };
}
