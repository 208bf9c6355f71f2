// A confirmation before a change that cannot be undone (revoking a key or a token, removing a
// member): a modal <dialog> (focus moves into it, Escape cancels, the page behind is inert). Its
// fixed wording is in the page; this fills in which item (`#{id}-name`, `#{id}-summary`) and,
// where the dialog has a `#{id}-note`, a note about the caller itself, runs the one API action
// with `#{id}-confirm` and shows a refusal in `#{id}-error`. Cancel (`#{id}-cancel`) has the
// initial focus, so Enter alone never confirms.
import { type DialogState, returnFocusOnClose, runDialogAction } from './dialog-actions.ts';
import { byId } from './dom.ts';
import { clearProblem } from './notices.ts';

export interface ConfirmDialog<T> {
  open(item: T, opener: HTMLElement): void;
  close(): void;
}

export interface ConfirmText {
  /** Goes into the title, in quotes. */
  name: string;
  /** One line that says exactly which item (names may repeat). */
  summary: string;
  /** What this means for the signed-in caller itself; null or absent: nothing particular. */
  note?: string | null;
}

export function createConfirmDialog<T>(
  id: string,
  deps: {
    describe(item: T): ConfirmText;
    /** Makes the change through the API; a throw is shown in the dialog. */
    confirm(item: T): Promise<void>;
    /** Where focus goes when the opener is gone (its row was redrawn). */
    fallbackFocus(): HTMLElement;
  },
): ConfirmDialog<T> {
  const dialog = byId(`${id}-dialog`, HTMLDialogElement);
  const name = byId(`${id}-name`, HTMLElement);
  const summary = byId(`${id}-summary`, HTMLElement);
  // Only dialogs with something to say about the caller have a note (Public Access's has none).
  const note = dialog.querySelector<HTMLElement>(`#${id}-note`);
  const error = byId(`${id}-error`, HTMLElement);
  const confirm = byId(`${id}-confirm`, HTMLButtonElement);
  const cancel = byId(`${id}-cancel`, HTMLButtonElement);
  const state: DialogState<T> = { current: null };

  cancel.addEventListener('click', () => dialog.close());
  confirm.addEventListener('click', async () => {
    const open = state.current;
    if (!open) return;
    await runDialogAction(dialog, confirm, error, () => deps.confirm(open.key));
  });
  returnFocusOnClose(dialog, state, deps.fallbackFocus);

  return {
    open(item, opener) {
      state.current = { key: item, opener };
      const text = deps.describe(item);
      name.textContent = `“${text.name}”`;
      summary.textContent = text.summary;
      if (note) {
        note.textContent = text.note ?? '';
        note.hidden = (text.note ?? null) === null;
      }
      clearProblem(error);
      dialog.showModal();
      cancel.focus();
    },
    close() {
      if (dialog.open) dialog.close();
    },
  };
}
