// What the modal dialogs (Edit scope, and every confirmation: confirm-dialog.ts) do alike: run
// their one API action with the button disabled and the dialog marked busy, close on success or
// show the API's words, and on close give focus back to the button that opened them (or a
// fallback when its row was redrawn).
import { runButtonAction } from './button-action.ts';

export interface DialogOpener<K> {
  key: K;
  opener: HTMLElement;
}

/** Runs `action` once at a time; the dialog closes when it succeeds. */
export function runDialogAction(
  dialog: HTMLDialogElement,
  button: HTMLButtonElement,
  problem: HTMLElement,
  action: () => Promise<void>,
): Promise<void> {
  return runButtonAction(button, problem, async () => {
    dialog.setAttribute('aria-busy', 'true');
    try {
      await action();
      dialog.close();
    } finally {
      dialog.removeAttribute('aria-busy');
    }
  });
}

/** What a dialog is open for: set by its open(), cleared when it closes. */
export interface DialogState<K> {
  current: DialogOpener<K> | null;
}

/** On close, forgets what the dialog was open for and returns focus to its opener. */
export function returnFocusOnClose<K>(
  dialog: HTMLDialogElement,
  state: DialogState<K>,
  fallbackFocus: () => HTMLElement,
): void {
  dialog.addEventListener('close', () => {
    const opener = state.current?.opener;
    state.current = null;
    (opener?.isConnected ? opener : fallbackFocus()).focus();
  });
}
