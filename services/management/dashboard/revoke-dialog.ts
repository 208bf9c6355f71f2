// The revoke confirmation: a modal <dialog> (focus moves into it, Escape cancels, the page
// behind is inert) that says revoking is permanent and that the edge may accept the key for up
// to about 30 s more. Cancel has the initial focus, so Enter alone never revokes.
import type { PublicKeyView } from './api-types.ts';
import { type DialogState, returnFocusOnClose, runDialogAction } from './dialog-actions.ts';
import { byId } from './dom.ts';
import { clearProblem } from './notices.ts';
import { describeReach } from './scope-options.ts';

export interface RevokeDialog {
  open(key: PublicKeyView, opener: HTMLElement): void;
  close(): void;
}

export function createRevokeDialog(deps: {
  /** Revokes the key through the API; a throw is shown in the dialog. */
  revoke(key: PublicKeyView): Promise<void>;
  /** Where focus goes when the opener is gone (its row changed). */
  fallbackFocus(): HTMLElement;
}): RevokeDialog {
  const dialog = byId('revoke-dialog', HTMLDialogElement);
  const name = byId('revoke-key-name', HTMLElement);
  const summary = byId('revoke-key-summary', HTMLElement);
  const error = byId('revoke-error', HTMLElement);
  const confirm = byId('revoke-confirm', HTMLButtonElement);
  const cancel = byId('revoke-cancel', HTMLButtonElement);
  const state: DialogState<PublicKeyView> = { current: null };

  cancel.addEventListener('click', () => dialog.close());
  confirm.addEventListener('click', async () => {
    const open = state.current;
    if (!open) return;
    await runDialogAction(dialog, confirm, error, () => deps.revoke(open.key));
  });
  returnFocusOnClose(dialog, state, deps.fallbackFocus);

  return {
    open(key, opener) {
      state.current = { key, opener };
      name.textContent = `“${key.name}”`;
      // Which key exactly: names may repeat, so the visible characters and the scope say it too.
      const reach = describeReach(key.scope, key.toolkits);
      summary.textContent = `${key.prefix}${key.visible}… · ${key.environment} · ${reach.toolkits}: ${reach.detail}`;
      clearProblem(error);
      dialog.showModal();
      cancel.focus();
    },
    close() {
      if (dialog.open) dialog.close();
    },
  };
}
