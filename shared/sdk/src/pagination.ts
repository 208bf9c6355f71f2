// A `…_list` call (docs/management-api.md "Lists"): awaited, it is the first page's body; iterated
// with `for await`, it yields every item of every page, following `next_cursor` until it is null.
// An awaited page iterates too, from its own items on.
import type { Args, OperationSpec } from './operation.ts';
import type { Call, RequestOptions } from './transport.ts';

/** A list answer: `{data, next_cursor}`. */
export interface ListPage<TItem = unknown> {
  data: TItem[];
  next_cursor: string | null;
}

/** The items of a list answer. */
export type ListItem<TPage> = TPage extends { data: Array<infer TItem> } ? TItem : never;

/** An awaited page: its body, and an async iterable over its items and those of the pages after it. */
export type Page<TPage> = TPage & AsyncIterable<ListItem<TPage>>;

/** What a `…_list` method returns: the first page once awaited, and every item when iterated. */
export type PageResult<TPage> = Promise<Page<TPage>> & AsyncIterable<ListItem<TPage>>;

export function paginate(
  call: Call,
  op: OperationSpec,
  args: Args,
  options: RequestOptions | undefined,
): PageResult<ListPage> {
  const fetchPage = async (cursor: string | undefined): Promise<Page<ListPage>> => {
    const page = (await call(op, cursor === undefined ? args : { ...args, cursor }, options)) as ListPage;
    return withItems(page, fetchPage);
  };
  const first = fetchPage(undefined);
  return Object.assign(first, { [Symbol.asyncIterator]: () => items(first, fetchPage) });
}

function withItems(
  page: ListPage,
  fetchPage: (cursor: string | undefined) => Promise<Page<ListPage>>,
): Page<ListPage> {
  // Not enumerable: the page still prints and serializes as the answer's body.
  Object.defineProperty(page, Symbol.asyncIterator, {
    value: () => items(Promise.resolve(page as Page<ListPage>), fetchPage),
    enumerable: false,
    configurable: true,
  });
  return page as Page<ListPage>;
}

async function* items(
  first: Promise<Page<ListPage>>,
  fetchPage: (cursor: string | undefined) => Promise<Page<ListPage>>,
): AsyncGenerator<unknown> {
  let page = await first;
  for (;;) {
    yield* page.data;
    const next = page.next_cursor;
    if (next === null || next === undefined || next === '') return;
    page = await fetchPage(next);
  }
}
