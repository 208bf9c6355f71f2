// What every button or form that calls the API does alike (Create key, Add member, Create token,
// Import, Load more, a dialog's confirm): run its one action at a time, with the button disabled
// while it runs, and show a refusal in the API's own words in the region it belongs to.
import { clearProblem, showProblem } from './notices.ts';

/** Runs `action` unless `button` is already busy with it; a throw is shown in `problem`. */
export async function runButtonAction(
  button: HTMLButtonElement,
  problem: HTMLElement,
  action: () => Promise<void>,
): Promise<void> {
  if (button.disabled) return;
  button.disabled = true;
  clearProblem(problem);
  try {
    await action();
  } catch (err) {
    showProblem(problem, err);
  } finally {
    button.disabled = false;
  }
}

/** Runs `action` on the form's submit (Enter or its submit button), through that button. */
export function onSubmit(form: HTMLFormElement, problem: HTMLElement, action: () => Promise<void>): void {
  const submit = form.querySelector<HTMLButtonElement>('button[type="submit"]')!;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void runButtonAction(submit, problem, action);
  });
}
