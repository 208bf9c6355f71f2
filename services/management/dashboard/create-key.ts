// The Create key form and the panel that shows the new key once (secret-once.ts, `#new-key…` in
// the page). The form starts at the narrowest scope with a route already chosen, so a name is all
// it needs. The full key lives only in the panel until "I have stored it" or a reload: never in
// storage, never in the list (which shows its first eight characters like every other key).
import type { Api } from './api-client.ts';
import { type CreatedKey, ENVIRONMENTS, type Environment } from './api-types.ts';
import { onSubmit } from './button-action.ts';
import { byId, h } from './dom.ts';
import { announce, clearProblem } from './notices.ts';
import { createScopeFieldset } from './scope-fieldset.ts';
import { defaultScope } from './scope-options.ts';
import { createSecretPanel } from './secret-once.ts';

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
  const scope = createScopeFieldset('create');
  byId('create-scope', HTMLElement).replaceWith(scope.element);
  environment.replaceChildren(...ENVIRONMENTS.map((e) => h('option', { value: e }, e)));
  const panel = createSecretPanel('new-key', { status: deps.status, noun: 'Key', afterDone: () => name });

  function resetForm(): void {
    name.value = '';
    environment.value = 'production';
    scope.set(defaultScope());
    clearProblem(error);
  }

  onSubmit(form, error, async () => {
    const chosen = scope.read();
    if (!chosen) return;
    // The name goes as typed: the API decides what a valid name is and says so.
    const key = await deps.call((api) =>
      api.createKey({ name: name.value, environment: environment.value as Environment, scope: chosen }),
    );
    resetForm();
    panel.show(key.name, key.key);
    announce(deps.status, `Key “${key.name}” created. Copy it now: it is shown only once.`);
    await deps.created(key);
  });

  return {
    reset() {
      resetForm();
      panel.forget();
    },
  };
}
