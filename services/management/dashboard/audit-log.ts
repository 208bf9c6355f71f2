// The Audit log section (owners and admins only; the page never asks for it with a `member`
// token): the newest page first, older ones appended by "Load more entries" while the API names
// a next cursor. After each change the page makes, the first page is read again, so the change
// the user just made is at the top.
import type { Api } from './api-client.ts';
import type { AuditEntryView } from './api-types.ts';
import { type MemberNames, renderAuditRows } from './audit-log-table.ts';
import { byId } from './dom.ts';
import { clearProblem, showProblem } from './notices.ts';

export interface AuditLogSection {
  /** Shows the section and loads the first page. */
  enter(): Promise<void>;
  /** Reads the first page again; a refusal goes to the page's notice area. */
  reload(): Promise<void>;
  /** Redraws with the member names the page knows now. */
  redraw(): void;
  /** Hides the section and forgets its entries. */
  leave(): void;
}

export function createAuditLog(deps: {
  call<T>(fn: (api: Api) => Promise<T>): Promise<T>;
  names: MemberNames;
  pageError: HTMLElement;
}): AuditLogSection {
  const section = byId('audit', HTMLElement);
  const rows = byId('audit-rows', HTMLTableSectionElement);
  const loadMore = byId('load-more-audit', HTMLButtonElement);
  let entries: AuditEntryView[] = [];
  let nextCursor: string | null = null;
  let shown = false;

  function render(): void {
    renderAuditRows(rows, entries, deps.names);
    loadMore.hidden = nextCursor === null;
  }

  async function loadFirstPage(): Promise<void> {
    const page = await deps.call((api) => api.listAuditLog(null));
    entries = page.data;
    nextCursor = page.next_cursor;
    render();
  }

  loadMore.addEventListener('click', async () => {
    if (nextCursor === null || loadMore.disabled) return;
    loadMore.disabled = true;
    clearProblem(deps.pageError);
    try {
      const page = await deps.call((api) => api.listAuditLog(nextCursor));
      entries = [...entries, ...page.data];
      nextCursor = page.next_cursor;
      render();
    } catch (err) {
      showProblem(deps.pageError, err);
    } finally {
      loadMore.disabled = false;
    }
  });

  return {
    async enter() {
      shown = true;
      section.hidden = false;
      await loadFirstPage();
    },
    async reload() {
      if (!shown) return;
      try {
        await loadFirstPage();
      } catch (err) {
        showProblem(deps.pageError, err);
      }
    },
    redraw() {
      if (shown) render();
    },
    leave() {
      shown = false;
      section.hidden = true;
      entries = [];
      nextCursor = null;
      rows.replaceChildren();
      loadMore.hidden = true;
    },
  };
}
