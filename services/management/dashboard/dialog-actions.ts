// What the page's two modal dialogs (Edit scope, Revoke) do alike: run their one API action with
// the button disabled and the dialog marked busy, close on success or show the API's words, and on
// close give focus back to the button that opened them (or a fallback when its row was redrawn).
import { clearProblem, showProblem } from './notices.ts';

export interface DialogOpener<K> {
  key: K;
  opener: HTMLElement;
}

/** Runs `action` once at a time; the dialog closes when it succeeds. */
export async function runDialogAction(
  dialog: HTMLDialogElement,
  button: HTMLButtonElement,
  problem: HTMLElement,
  action: () => Promise<void>,
): Promise<void> {
  if (button.disabled) return;
  button.disabled = true;
  dialog.setAttribute('aria-busy', 'true');
  clearProblem(problem);
  try {
    await action();
    dialog.close();
  } catch (err) {
    showProblem(problem, err);
  } finally {
    button.disabled = false;
    dialog.removeAttribute('aria-busy');
  }
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
