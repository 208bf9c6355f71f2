// The Add member form (owners and admins): a name and a role among those the caller may give,
// `member` preselected as the narrowest. The API answers with the member's first token, shown
// once with Copy so it can be handed to the new member.
import type { Api } from './api-client.ts';
import type { CreatedMember, Role } from './api-types.ts';
import { onSubmit } from './button-action.ts';
import { byId, h } from './dom.ts';
import { announce, clearProblem } from './notices.ts';
import { createSecretPanel } from './secret-once.ts';

export interface AddMemberForm {
  /** Shows the form with these role choices (none: hidden). */
  enter(assignable: readonly Role[]): void;
  /** Hides the form, back to its defaults, and forgets a shown token. */
  leave(): void;
}

export function createAddMemberForm(deps: {
  call<T>(fn: (api: Api) => Promise<T>): Promise<T>;
  /** After a member was added: reload the list and the audit log. */
  added(created: CreatedMember): Promise<void>;
  status: HTMLElement;
}): AddMemberForm {
  const section = byId('add-member', HTMLElement);
  const form = byId('add-member-form', HTMLFormElement);
  const name = byId('add-member-name', HTMLInputElement);
  const role = byId('add-member-role', HTMLSelectElement);
  const error = byId('add-member-error', HTMLElement);
  const panel = createSecretPanel('new-member-token', {
    status: deps.status,
    noun: 'Token',
    afterDone: () => name,
  });

  function resetForm(): void {
    name.value = '';
    role.value = 'member';
    clearProblem(error);
  }

  onSubmit(form, error, async () => {
    // The name goes as typed: the API decides what a valid name is and says so.
    const created = await deps.call((api) =>
      api.createMember({ name: name.value, role: role.value as Role }),
    );
    resetForm();
    panel.show(created.member.name, created.token.token);
    announce(
      deps.status,
      `${created.member.name} added as ${created.member.role}. Copy their token now: it is shown only once.`,
    );
    await deps.added(created);
  });

  return {
    enter(assignable) {
      role.replaceChildren(...assignable.map((r) => h('option', { value: r }, r)));
      resetForm();
      section.hidden = assignable.length === 0;
    },
    leave() {
      resetForm();
      panel.forget();
      section.hidden = true;
    },
  };
}
