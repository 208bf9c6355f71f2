// Edit scope: a modal <dialog> holding the same scope chooser as the Create form, preset to the
// key's current scope. Saving sends PUT /organization/public-keys/:id/scope.
import type { PublicKeyView, Scope } from './api-types.ts';
import { type DialogState, returnFocusOnClose, runDialogAction } from './dialog-actions.ts';
import { byId } from './dom.ts';
import { clearProblem } from './notices.ts';
import { createScopeFieldset } from './scope-fieldset.ts';

export interface EditScopeDialog {
  open(key: PublicKeyView, opener: HTMLElement): void;
  close(): void;
}

export function createEditScopeDialog(deps: {
  save(key: PublicKeyView, scope: Scope): Promise<void>;
  fallbackFocus(): HTMLElement;
}): EditScopeDialog {
  const dialog = byId('scope-dialog', HTMLDialogElement);
  const form = byId('scope-form', HTMLFormElement);
  const name = byId('scope-key-name', HTMLElement);
  const error = byId('scope-error', HTMLElement);
  const cancel = byId('scope-cancel', HTMLButtonElement);
  const scope = createScopeFieldset('edit');
  byId('edit-scope', HTMLElement).replaceWith(scope.element);
  const submit = form.querySelector<HTMLButtonElement>('button[type="submit"]')!;
  const state: DialogState<PublicKeyView> = { current: null };

  cancel.addEventListener('click', () => dialog.close());
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const chosen = scope.read();
    const open = state.current;
    if (!open || !chosen) return;
    await runDialogAction(dialog, submit, error, () => deps.save(open.key, chosen));
  });
  returnFocusOnClose(dialog, state, deps.fallbackFocus);

  return {
    open(key, opener) {
      state.current = { key, opener };
      name.textContent = `“${key.name}”`;
      clearProblem(error);
      scope.set(key.scope);
      dialog.showModal();
      // Focus the chosen kind, where the user is most likely to start.
      scope.element.querySelector<HTMLInputElement>('input[type="radio"]:checked')?.focus();
    },
    close() {
      if (dialog.open) dialog.close();
    },
  };
}
