// Each benchmark owns one section of docs/benchmarks.md, between its start and end markers, so
// running one leaves the others' sections as they are. A page without the section gets it
// appended.
export function withSection(doc: string, start: string, end: string, section: string): string {
  const at = doc.indexOf(start);
  const to = doc.indexOf(end);
  return at >= 0 && to > at
    ? doc.slice(0, at) + section + doc.slice(to + end.length)
    : `${doc.trimEnd()}\n\n${section}\n`;
}
