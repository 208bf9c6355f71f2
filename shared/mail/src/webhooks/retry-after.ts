// The `Retry-After` of a webhook answer (RFC 9110 §10.2.3), honoured only on 429 and 503
// (decisions.md: it may lengthen the next delay). Either delta-seconds or an HTTP-date; anything
// else is ignored rather than guessed at, since a misread value would postpone a delivery.

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

// The three HTTP-date forms a recipient must accept (RFC 9110 §5.6.7).
const IMF_FIXDATE = /^[a-z]{3}, (\d{2}) ([a-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/i;
const RFC_850 = /^[a-z]{6,9}, (\d{2})-([a-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/i;
const ASCTIME = /^[a-z]{3} ([a-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/i;

/** Milliseconds from `nowMs` the answer asks to wait, or null (other status, absent, unreadable). */
export function retryAfterMsOf(status: number, header: string | undefined, nowMs: number): number | null {
  if (status !== 429 && status !== 503) return null;
  if (header === undefined) return null;
  const text = header.trim();
  if (/^-?\d+$/.test(text)) return Math.min(Math.max(0, Number(text) * 1000), Number.MAX_SAFE_INTEGER);
  const atMs = httpDateMs(text, nowMs);
  return atMs === null ? null : Math.max(0, atMs - nowMs);
}

/** The instant an HTTP-date names, or null when `text` is not one. */
function httpDateMs(text: string, nowMs: number): number | null {
  let m = IMF_FIXDATE.exec(text);
  if (m) return utcMs(Number(m[3]), m[2]!, Number(m[1]), m[4]!, m[5]!, m[6]!);
  m = RFC_850.exec(text);
  if (m) {
    // A two-digit year more than 50 years ahead is in the past century (RFC 9110 §5.6.7).
    const nowYear = new Date(nowMs).getUTCFullYear();
    let year = Math.floor(nowYear / 100) * 100 + Number(m[3]);
    if (year > nowYear + 50) year -= 100;
    return utcMs(year, m[2]!, Number(m[1]), m[4]!, m[5]!, m[6]!);
  }
  m = ASCTIME.exec(text);
  if (m) return utcMs(Number(m[6]), m[1]!, Number(m[2]!.trim()), m[3]!, m[4]!, m[5]!);
  return null;
}

function utcMs(
  year: number,
  monthName: string,
  day: number,
  h: string,
  min: string,
  s: string,
): number | null {
  const month = MONTHS.indexOf(monthName.toLowerCase());
  const [hours, minutes, seconds] = [Number(h), Number(min), Number(s)];
  if (month < 0 || day < 1 || day > 31 || hours > 23 || minutes > 59 || seconds > 60) return null;
  const ms = Date.UTC(year, month, day, hours, minutes, Math.min(seconds, 59));
  // Date.UTC rolls 31 Feb over into March; such a date is garbage, not a date.
  return new Date(ms).getUTCDate() === day ? ms : null;
}
