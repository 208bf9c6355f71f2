// What a publish makes of its Prefer header (docs/realtime-http.md "Waiting for the offset"):
// `return=representation` asks to wait until the channel actor applied the message and to be
// answered 201 with its offset and epoch; `wait=N` caps that wait at N seconds, 1 to 5 (outside
// that range it is clamped into it; a wait that is not a number of seconds is ignored), default 5.
// Any other preference, `return=minimal` included, changes nothing.
import { parsePreferHeader } from '@lattice/http';

export const PUBLISH_WAIT_MIN_SECONDS = 1;
export const PUBLISH_WAIT_MAX_SECONDS = 5;
export const PUBLISH_WAIT_DEFAULT_SECONDS = 5;

/** The value of Preference-Applied on a publish answered with its representation. */
export const RETURN_REPRESENTATION = 'return=representation';

const DELTA_SECONDS = /^[0-9]+$/;

function waitSecondsOf(value: string | null | undefined): number {
  if (value === null || value === undefined || !DELTA_SECONDS.test(value))
    return PUBLISH_WAIT_DEFAULT_SECONDS;
  return Math.min(PUBLISH_WAIT_MAX_SECONDS, Math.max(PUBLISH_WAIT_MIN_SECONDS, Number(value)));
}

/**
 * How long a publish with this Prefer header may wait for its message to be applied, in
 * milliseconds; null when it asks for no representation (no header, `return=minimal`, …).
 */
export function publishWaitMsOf(prefer: string | readonly string[] | undefined): number | null {
  const prefs = parsePreferHeader(prefer);
  const wanted = prefs.get('return');
  if (wanted?.value?.toLowerCase() !== 'representation') return null;
  // `wait` is a preference of its own (RFC 7240 section 4.3); as a parameter of `return`
  // (`return=representation; wait=2`) it means the same, so it is read there too.
  const wait = prefs.has('wait') ? prefs.get('wait')!.value : wanted.params.get('wait');
  return waitSecondsOf(wait) * 1000;
}
