// The Audit log section (owners and admins only; the page never asks for it with a `member`
// token): the newest page first, older ones appended by "Load more entries" while the API names
// a next cursor. After each change the page makes, the first page is read again, so the change
// the user just made is at the top.
import type { Api } from './api-client.ts';
import type { AuditEntryView } from './api-types.ts';
import { type MemberNames, renderAuditRows } from './audit-log-table.ts';
import { byId } from './dom.ts';
import { showProblem } from './notices.ts';
import { createPagedList } from './paged-list.ts';

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
  const entries = createPagedList<AuditEntryView>({
    rows: byId('audit-rows', HTMLTableSectionElement),
    loadMore: byId('load-more-audit', HTMLButtonElement),
    pageError: deps.pageError,
    fetch: (cursor) => deps.call((api) => api.listAuditLog(cursor)),
    draw: (rows, items) => renderAuditRows(rows, items, deps.names),
  });
  let shown = false;

  return {
    async enter() {
      shown = true;
      section.hidden = false;
      await entries.loadFirst();
    },
    async reload() {
      if (!shown) return;
      try {
        await entries.loadFirst();
      } catch (err) {
        showProblem(deps.pageError, err);
      }
    },
    redraw() {
      if (shown) entries.render();
    },
    leave() {
      shown = false;
      section.hidden = true;
      entries.clear();
    },
  };
}
