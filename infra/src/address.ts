// Addresses of the backing services and a cheap "is anything listening" check, used to tell
// "nothing there, start one" apart from "something there that does not answer properly".
import { connect } from 'node:net';

export interface HostPort {
  host: string;
  port: number;
}

/** `127.0.0.1:9092` or `[::1]:9092`. */
export function parseHostPort(text: string): HostPort {
  const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(text.trim());
  if (!m?.[1] || !m[2]) throw new Error(`expected host:port, got "${text}"`);
  const port = Number(m[2]);
  if (port < 1 || port > 65535) throw new Error(`port out of range in "${text}"`);
  return { host: m[1], port };
}

/** Host and port of a postgres:// or redis:// URL, with the scheme's default port. */
export function hostPortOfUrl(url: string, defaultPort: number): HostPort {
  const u = new URL(url);
  const host = u.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
  return { host, port: u.port ? Number(u.port) : defaultPort };
}

export function formatHostPort({ host, port }: HostPort): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Only a service on this machine can be started by us; anything else must already run. */
export function isLocalHost(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || host === '0.0.0.0';
}

/** True when a TCP connection to the address is accepted within the timeout. */
export function isListening({ host, port }: HostPort, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
