// A secret the API returns once (a new public key, a new member's first token, a new token of
// yours), shown in its panel with a Copy button: it lives only in the panel's read-only input
// until "I have stored it" or a reload, never in storage and never in a list.
// The panel's elements are `#{id}`, `#{id}-title`, `#{id}-name`, `#{id}-value`, `#{id}-copy`
// and `#{id}-done`.
import { byId } from './dom.ts';
import { announce } from './notices.ts';

export interface SecretPanel {
  /** Shows `secret`, belonging to `name`, and moves focus to the panel's title. */
  show(name: string, secret: string): void;
  /** Hides the panel and forgets the secret. */
  forget(): void;
}

export function createSecretPanel(
  id: string,
  deps: {
    status: HTMLElement;
    /** What the secret is, for the status line ("Key", "Token"). */
    noun: string;
    /** Where focus goes after "I have stored it". */
    afterDone(): HTMLElement;
  },
): SecretPanel {
  const panel = byId(id, HTMLElement);
  const title = byId(`${id}-title`, HTMLElement);
  const name = byId(`${id}-name`, HTMLElement);
  const value = byId(`${id}-value`, HTMLInputElement);
  const copy = byId(`${id}-copy`, HTMLButtonElement);
  const done = byId(`${id}-done`, HTMLButtonElement);

  function forget(): void {
    value.value = '';
    name.textContent = '';
    panel.hidden = true;
  }

  copy.addEventListener('click', async () => {
    try {
      // Secure contexts only (https, or localhost): elsewhere the secret is selected for Ctrl+C.
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(value.value);
      announce(deps.status, `${deps.noun} copied to the clipboard.`);
    } catch {
      value.focus();
      value.select();
      announce(
        deps.status,
        `This browser did not let the page copy: the ${deps.noun.toLowerCase()} is selected, press Ctrl+C (⌘C).`,
      );
    }
  });

  done.addEventListener('click', () => {
    forget();
    announce(deps.status, '');
    deps.afterDone().focus();
  });

  return {
    show(owner, secret) {
      value.value = secret;
      name.textContent = owner;
      panel.hidden = false;
      title.focus();
    },
    forget,
  };
}
