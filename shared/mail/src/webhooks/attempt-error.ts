// The `last_error` of an attempt that got no HTTP answer: short and readable by the integrator
// who looks at the delivery (spec "Webhook delivery record"), not a stack trace or a raw errno.

const MAX_CHARS = 200;

const BY_CODE: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the receiver',
  EPIPE: 'connection closed by the receiver while sending',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host lookup failed temporarily',
  HPE_HEADER_OVERFLOW: 'invalid HTTP answer: headers too large',
};

// OpenSSL's verification failures, as Node reports them in `code` (X509_V_ERR_* without the prefix).
const CERTIFICATE_CODES =
  /^(CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$|INVALID_CA$|INVALID_PURPOSE$|ERR_TLS_CERT_ALTNAME_INVALID$)/;

/** What went wrong with an attempt that has no HTTP status, in a few words. */
export function attemptErrorText(err: unknown): string {
  if (!(err instanceof Error)) return clipped(String(err));
  const code = (err as NodeJS.ErrnoException).code ?? '';
  if (CERTIFICATE_CODES.test(code)) {
    // Node adds advice for its own operator after a `;` (`…; if the root CA is installed
    // locally, try running Node.js with --use-system-ca`): not the integrator's business.
    return clipped(`certificate: ${firstLine(err.message).split('; ')[0]}`);
  }
  // A reused keep-alive connection the receiver had closed, or a receiver that hung up mid-answer.
  if (err.message === 'socket hang up') return 'connection closed before an answer';
  const known = BY_CODE[code];
  if (known) return clipped(`${known}${peerOf(err)}`);
  if (code.startsWith('HPE_')) return clipped(`invalid HTTP answer: ${firstLine(err.message)}`);
  if (code.startsWith('ERR_SSL_') || /^ERR_TLS_/.test(code)) return clipped(`TLS: ${firstLine(err.message)}`);
  return clipped(firstLine(err.message) || code || err.name);
}

/** ` (127.0.0.1:8443)` when a connection error names the peer it tried. */
function peerOf(err: Error): string {
  const { address, port } = err as { address?: unknown; port?: unknown };
  if (typeof address !== 'string') return '';
  const host = address.includes(':') ? `[${address}]` : address;
  return typeof port === 'number' ? ` (${host}:${port})` : ` (${host})`;
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0]!.trim();
}

function clipped(text: string): string {
  return text.length <= MAX_CHARS ? text : `${text.slice(0, MAX_CHARS - 1)}…`;
}
