// Refusals and confirmations. A refusal is shown in a role="alert" region in the API's own
// words: `error.message`, then each `fields` entry (path and message) of a validation error.
import { ApiProblem } from './api-client.ts';
import { h } from './dom.ts';

export function showProblem(region: HTMLElement, err: unknown): void {
  if (err instanceof ApiProblem) {
    const message = h('p', {}, err.message, ' ', h('span', { class: 'code' }, `(${err.code})`));
    const fields = err.fields.map((f) => h('li', {}, h('code', {}, f.path), ' ', f.message));
    region.replaceChildren(message, ...(fields.length > 0 ? [h('ul', {}, ...fields)] : []));
  } else {
    // A fault of the page itself: still say something rather than fail silently.
    region.replaceChildren(h('p', {}, `Something went wrong in this page: ${String(err)}`));
  }
}

export function clearProblem(region: HTMLElement): void {
  region.replaceChildren();
}

/** A polite confirmation in the status line ("Key revoked."), replacing the previous one. */
export function announce(status: HTMLElement, text: string): void {
  status.textContent = text;
}
