// The revoke confirmation: a modal <dialog> (focus moves into it, Escape cancels, the page
// behind is inert) that says revoking is permanent and that the edge may accept the key for up
// to about 30 s more. Cancel has the initial focus, so Enter alone never revokes.
import type { PublicKeyView } from './api-types.ts';
import { byId } from './dom.ts';
import { clearProblem, showProblem } from './notices.ts';
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
  let current: { key: PublicKeyView; opener: HTMLElement } | null = null;

  cancel.addEventListener('click', () => dialog.close());
  confirm.addEventListener('click', async () => {
    if (!current || confirm.disabled) return;
    confirm.disabled = true;
    dialog.setAttribute('aria-busy', 'true');
    clearProblem(error);
    try {
      await deps.revoke(current.key);
      dialog.close();
    } catch (err) {
      showProblem(error, err);
    } finally {
      confirm.disabled = false;
      dialog.removeAttribute('aria-busy');
    }
  });
  dialog.addEventListener('close', () => {
    const opener = current?.opener;
    current = null;
    (opener?.isConnected ? opener : deps.fallbackFocus()).focus();
  });

  return {
    open(key, opener) {
      current = { key, opener };
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
