// Where the member token lives between page loads: this tab's sessionStorage, nothing else. It
// never goes into a URL, localStorage or a cookie, so it dies with the tab and is never sent
// anywhere but in the Authorization header of the page's own API calls.
const STORAGE_KEY = 'lattice.dashboard.member-token';

export const sessionToken = {
  read(): string | null {
    try {
      return sessionStorage.getItem(STORAGE_KEY);
    } catch {
      // Storage disabled by the browser: the user signs in again on every load.
      return null;
    }
  },
  save(token: string): void {
    try {
      sessionStorage.setItem(STORAGE_KEY, token);
    } catch {
      // Not kept; this load still works with the token in memory.
    }
  },
  clear(): void {
    try {
      sessionStorage.removeItem(STORAGE_KEY);
    } catch {
      // Nothing was kept.
    }
  },
};
