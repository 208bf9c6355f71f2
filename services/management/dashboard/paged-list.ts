// A table the API fills in pages (`data`, `next_cursor`): the first page when the page signs in
// and again after each change it makes, later pages appended by the table's "Load more" button
// while the API names a next cursor. The keys, the members, your tokens and the audit log are
// each one. A refused Load more is shown in the page's notice area.
import type { Page } from './api-types.ts';
import { runButtonAction } from './button-action.ts';

export interface PagedList<T> {
  /** What the table shows, in the API's order; after setting it (a row changed), call render(). */
  items: readonly T[];
  /** Reads the first page again and shows it. */
  loadFirst(): Promise<void>;
  /** Draws the items, and Load more while the API named a next page. */
  render(): void;
  /** Forgets the items and empties the table. */
  clear(): void;
}

export function createPagedList<T>(deps: {
  rows: HTMLTableSectionElement;
  loadMore: HTMLButtonElement;
  /** Where a refused Load more is shown. */
  pageError: HTMLElement;
  /** One page of the list, from the API (`cursor` null: the first). */
  fetch(cursor: string | null): Promise<Page<T>>;
  /** Replaces the table's rows with these items. */
  draw(rows: HTMLTableSectionElement, items: readonly T[]): void;
}): PagedList<T> {
  let items: readonly T[] = [];
  let nextCursor: string | null = null;

  function render(): void {
    deps.draw(deps.rows, items);
    deps.loadMore.hidden = nextCursor === null;
  }

  deps.loadMore.addEventListener('click', () => {
    if (nextCursor === null) return;
    void runButtonAction(deps.loadMore, deps.pageError, async () => {
      const page = await deps.fetch(nextCursor);
      items = [...items, ...page.data];
      nextCursor = page.next_cursor;
      render();
    });
  });

  return {
    get items() {
      return items;
    },
    set items(next) {
      items = next;
    },
    async loadFirst() {
      const page = await deps.fetch(null);
      items = page.data;
      nextCursor = page.next_cursor;
      render();
    },
    render,
    clear() {
      items = [];
      nextCursor = null;
      deps.rows.replaceChildren();
      deps.loadMore.hidden = true;
    },
  };
}
