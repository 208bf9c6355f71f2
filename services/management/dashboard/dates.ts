// How the tables show when something happened: the day in the browser's locale, which keeps a
// column narrow, with the exact instant in the title.
import { h } from './dom.ts';

const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export function formatDay(iso: string): string {
  return dayFormat.format(new Date(iso));
}

export function dayTime(iso: string): HTMLTimeElement {
  return h('time', { datetime: iso, title: iso }, formatDay(iso));
}
