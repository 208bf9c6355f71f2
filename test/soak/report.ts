import type { SoakResult } from './soak.ts';
export function writeReport(r: SoakResult, _write: boolean): string[] {
  return [JSON.stringify(r.accounting, null, 1), JSON.stringify(r.chaos)];
}
