// The sign-in of a settings page (its markup, sign-in.part.html, is in every page, and the
// session bar in each page's header): a member token typed into the password field, checked with
// GET /organization/product and then kept in the tab's sessionStorage (session-token.ts, the key
// every settings page shares, so signing in on one signs in the others and a reload resumes).
// Every later call goes through `call`: a 401 means the token stopped working (revoked, or its
// member removed), and the page signs out saying why rather than show lists it cannot keep.
import { type Api, ApiProblem, createApi } from './api-client.ts';
import type { ProductView } from './api-types.ts';
import { byId } from './dom.ts';
import { announce, clearProblem, showProblem } from './notices.ts';
import { sessionToken } from './session-token.ts';

export interface SignedIn {
  api: Api;
  product: ProductView;
  /** The eight hex characters after `lmt_` of the token in use, to mark it in a token list. */
  tokenVisible: string;
}

export interface SignInControl {
  /** Runs an API call of the signed-in page; a 401 signs out and shows the API's words. */
  call<T>(fn: (api: Api) => Promise<T>): Promise<T>;
  /** Reads the caller again (after its own role changed) and redraws the page for it. */
  refresh(): Promise<void>;
  /** Signs out; `message` goes to the status line (why the page signed out by itself). */
  signOut(message?: string): void;
  /** Resumes the tab's session, or shows the sign-in form. Call once, when the page is wired. */
  start(): void;
}

export function createSignIn(deps: {
  /** Shows the workspace for this caller and loads its lists; a throw leaves the page signed out. */
  enter(session: SignedIn): Promise<void>;
  /** Forgets and clears everything a session showed. */
  leave(): void;
}): SignInControl {
  const signInSection = byId('sign-in', HTMLElement);
  const form = byId('sign-in-form', HTMLFormElement);
  const tokenInput = byId('token', HTMLInputElement);
  const submit = form.querySelector<HTMLButtonElement>('button[type="submit"]')!;
  const workspace = byId('workspace', HTMLElement);
  const sessionBar = byId('session-bar', HTMLElement);
  const productName = byId('product-name', HTMLElement);
  const roleName = byId('role-name', HTMLElement);
  const pageTitle = byId('page-title', HTMLElement);
  const pageError = byId('page-error', HTMLElement);
  const pageStatus = byId('page-status', HTMLElement);

  /** The token of the signed-in session; null while signed out. */
  let current: { token: string; api: Api } | null = null;

  function showSignedOut(): void {
    current = null;
    deps.leave();
    workspace.hidden = true;
    sessionBar.hidden = true;
    productName.textContent = '';
    roleName.textContent = '';
    signInSection.hidden = false;
  }

  function signOut(reason?: ApiProblem | string): void {
    sessionToken.clear();
    showSignedOut();
    tokenInput.value = '';
    if (reason instanceof ApiProblem) showProblem(pageError, reason);
    announce(pageStatus, typeof reason === 'string' ? reason : reason ? '' : 'Signed out.');
    tokenInput.focus();
  }

  async function call<T>(fn: (api: Api) => Promise<T>): Promise<T> {
    if (!current) throw new ApiProblem(401, 'signed_out', 'You are signed out. Sign in again.');
    try {
      return await fn(current.api);
    } catch (err) {
      if (err instanceof ApiProblem && err.status === 401) signOut(err);
      throw err;
    }
  }

  /** Only a token the API accepted is kept. */
  async function signIn(token: string): Promise<void> {
    const api = createApi(token);
    const product = await api.product();
    sessionToken.save(token);
    current = { token, api };
    productName.textContent = product.name;
    roleName.textContent = product.caller.role ?? product.caller.credential_kind;
    sessionBar.hidden = false;
    signInSection.hidden = true;
    workspace.hidden = false;
    await deps.enter({ api, product, tokenVisible: token.slice(4, 12) });
  }

  /** A refused or failed sign-in: nothing of the token is kept. */
  function failed(err: unknown): void {
    sessionToken.clear();
    showSignedOut();
    announce(pageStatus, '');
    showProblem(pageError, err);
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const token = tokenInput.value.trim();
    if (token === '' || submit.disabled) return;
    submit.disabled = true;
    clearProblem(pageError);
    announce(pageStatus, 'Signing in…');
    try {
      await signIn(token);
      tokenInput.value = '';
      announce(pageStatus, '');
      pageTitle.focus();
    } catch (err) {
      failed(err);
      tokenInput.focus();
    } finally {
      submit.disabled = false;
    }
  });

  byId('sign-out', HTMLButtonElement).addEventListener('click', () => {
    clearProblem(pageError);
    signOut();
  });

  return {
    call,
    async refresh() {
      if (!current) return;
      try {
        await signIn(current.token);
      } catch (err) {
        if (err instanceof ApiProblem && err.status === 401) signOut(err);
        else throw err;
      }
    },
    signOut: (message) => signOut(message ?? 'Signed out.'),
    start() {
      const kept = sessionToken.read();
      if (kept === null) {
        showSignedOut();
        return;
      }
      announce(pageStatus, 'Signing in…');
      signIn(kept)
        .then(() => announce(pageStatus, ''))
        .catch(failed);
    },
  };
}
