// Response fields the edge builds itself, set without Node's per-call checks.
//
// `res.setHeader` runs a regular expression over the name, another over the value and lower-cases
// the name on every call: for the two RateLimit fields on every answer that is most of what they
// cost (about 230 ns of the 290 ns a pair takes, microbenchmark). Both are valid by construction:
// constant lower-case names, values made of an sf-string checked once and integers. Node keeps a
// response's fields in an internal slot (lower-case name → [name, value]) that it serialises
// without checking again, so the edge writes there directly when a probe at load finds that slot
// behaving exactly like setHeader, and calls setHeader otherwise (another Node).
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

type FieldSlot = Record<string, [string, string]>;
type Slotted = Record<symbol, FieldSlot | null | undefined>;

/** Sets a field whose lower-case name and value are known valid (never from a request). */
export type TrustedFieldSetter = (res: ServerResponse, lowerName: string, value: string) => void;

const viaSetHeader: TrustedFieldSetter = (res, lowerName, value) => {
  res.setHeader(lowerName, value);
};

function direct(slot: symbol): TrustedFieldSetter {
  return (res, lowerName, value) => {
    const slotted = res as unknown as Slotted;
    let fields = slotted[slot];
    if (fields == null) {
      fields = Object.create(null) as FieldSlot;
      slotted[slot] = fields;
    }
    fields[lowerName] = [lowerName, value];
  };
}

/** The direct setter when this Node's slot gives the same fields as setHeader, else null. */
function probe(): TrustedFieldSetter | null {
  try {
    const fresh = () => new ServerResponse(new IncomingMessage(new Socket()));
    const reference = fresh();
    reference.setHeader('x-probe', 'a');
    const slot = Object.getOwnPropertySymbols(reference).find((s) => s.description === 'kOutHeaders');
    if (!slot) return null;
    const set = direct(slot);
    const tried = fresh();
    set(tried, 'x-probe', 'a');
    const before = fresh();
    before.setHeader('content-type', 'text/plain');
    set(before, 'x-probe', 'b');
    before.setHeader('x-probe', 'a');
    const seen = (res: ServerResponse) =>
      JSON.stringify([
        res.getHeaders(),
        res.getHeaderNames(),
        res.hasHeader('X-Probe'),
        res.getHeader('x-probe'),
      ]);
    const same = seen(tried) === seen(reference);
    const merged = JSON.stringify(before.getHeaders()) === '{"content-type":"text/plain","x-probe":"a"}';
    return same && merged ? set : null;
  } catch {
    return null;
  }
}

const probed = probe();

/** Whether this Node lets the edge set its own fields directly (for tests). */
export const setsFieldsDirectly = probed !== null;

export const setTrustedField: TrustedFieldSetter = probed ?? viaSetHeader;
