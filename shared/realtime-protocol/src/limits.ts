// The protocol's numbers, from interface-spec.md (Limits, Presence member, History) and
// decisions.md ("Realtime tokens and the WebSocket protocol"). The HTTP side keeps the same
// numbers in @lattice/realtime; a test there checks that both agree.

/** A client's text frame (default; the gateway may be configured otherwise). Larger: close 1009. */
export const TEXT_FRAME_MAX_BYTES = 65_536;
/** The first frame must be a valid `auth` within this long, else close 4001. */
export const AUTH_TIMEOUT_MS = 10_000;

/** Channel names: `namespace:rest`, 3 to 128 of `[a-zA-Z0-9._:-]`, namespace 1 to 64 without colon. */
export const CHANNEL_NAME_MIN = 3;
export const CHANNEL_NAME_MAX = 128;
export const NAMESPACE_NAME_MAX = 64;
/** Epochs are 16 hex characters (or "" before a channel's first message); longer is no epoch. */
export const EPOCH_MAX_LENGTH = 64;

/** A client event's `data`, serialized (compact JSON), at most this many bytes: 32 KiB. */
export const CLIENT_EVENT_DATA_MAX_BYTES = 32_768;
/** Per connection: a token bucket that starts full at 10 and refills at 5 per second. */
export const CLIENT_EVENT_BURST = 10;
export const CLIENT_EVENT_REFILL_PER_SECOND = 5;

/** A presence member's `info`, serialized (compact JSON), at most this many bytes: 10 KiB. */
export const PRESENCE_INFO_MAX_BYTES = 10_240;
export const PRESENCE_TTL_MIN_SECONDS = 1;
export const PRESENCE_TTL_MAX_SECONDS = 3600;
export const PRESENCE_TTL_DEFAULT_SECONDS = 60;

/** `history` with `last_n`: as the HTTP history read, 1 to 1000 entries. */
export const HISTORY_LAST_N_MIN = 1;
export const HISTORY_LAST_N_MAX = 1000;

/** A recovering subscribe replays at most this many entries and bytes (sum of each entry's JSON). */
export const RECOVER_MAX_ENTRIES = 1000;
export const RECOVER_MAX_BYTES = 524_288;
