// The Create key form and the panel that shows the new key once. The form starts at the
// narrowest scope with a route already chosen, so a name is all it needs. The full key lives
// only in this panel's input until "I have stored it" or a reload: never in storage, never in
// the list (which shows its first eight characters like every other key).
import type { Api } from './api-client.ts';
import { type CreatedKey, ENVIRONMENTS, type Environment } from './api-types.ts';
import { byId, h } from './dom.ts';
import { announce, clearProblem, showProblem } from './notices.ts';
import { createScopeFieldset } from './scope-fieldset.ts';
import { defaultScope } from './scope-options.ts';

export interface CreateKeyForm {
  /** Back to its defaults, and the shown key (if any) forgotten. */
  reset(): void;
}

export function createCreateKeyForm(deps: {
  /** Runs a call with the signed-in session's API (and signs out on a 401). */
  call<T>(fn: (api: Api) => Promise<T>): Promise<T>;
  /** After a key was created: reload the list. */
  created(key: CreatedKey): Promise<void>;
  status: HTMLElement;
}): CreateKeyForm {
  const form = byId('create-form', HTMLFormElement);
  const name = byId('create-name', HTMLInputElement);
  const environment = byId('create-environment', HTMLSelectElement);
  const error = byId('create-error', HTMLElement);
  const submit = form.querySelector<HTMLButtonElement>('button[type="submit"]')!;
  const scope = createScopeFieldset('create');
  byId('create-scope', HTMLElement).replaceWith(scope.element);
  environment.replaceChildren(...ENVIRONMENTS.map((e) => h('option', { value: e }, e)));

  const panel = byId('new-key', HTMLElement);
  const panelTitle = byId('new-key-title', HTMLElement);
  const panelName = byId('new-key-name', HTMLElement);
  const keyValue = byId('new-key-value', HTMLInputElement);
  const copy = byId('copy-key', HTMLButtonElement);
  const done = byId('new-key-done', HTMLButtonElement);

  function forgetKey(): void {
    keyValue.value = '';
    panelName.textContent = '';
    panel.hidden = true;
  }

  function resetForm(): void {
    name.value = '';
    environment.value = 'production';
    scope.set(defaultScope());
    clearProblem(error);
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const chosen = scope.read();
    if (!chosen || submit.disabled) return;
    submit.disabled = true;
    clearProblem(error);
    try {
      // The name goes as typed: the API decides what a valid name is and says so.
      const key = await deps.call((api) =>
        api.createKey({ name: name.value, environment: environment.value as Environment, scope: chosen }),
      );
      resetForm();
      keyValue.value = key.key;
      panelName.textContent = key.name;
      panel.hidden = false;
      panelTitle.focus();
      announce(deps.status, `Key “${key.name}” created. Copy it now: it is shown only once.`);
      await deps.created(key);
    } catch (err) {
      showProblem(error, err);
    } finally {
      submit.disabled = false;
    }
  });

  copy.addEventListener('click', async () => {
    try {
      // Secure contexts only (https, or localhost): elsewhere the key is selected for Ctrl+C.
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(keyValue.value);
      announce(deps.status, 'Key copied to the clipboard.');
    } catch {
      keyValue.focus();
      keyValue.select();
      announce(
        deps.status,
        'This browser did not let the page copy: the key is selected, press Ctrl+C (⌘C).',
      );
    }
  });

  done.addEventListener('click', () => {
    forgetKey();
    announce(deps.status, '');
    name.focus();
  });

  return {
    reset() {
      resetForm();
      forgetKey();
    },
  };
}
