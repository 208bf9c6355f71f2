// The life of an actor host run as a child process by a test: it reports events as JSON lines
// on standard output (the test waits for them), starts, and on SIGTERM stops cleanly.

/** Writes one event line, marked with the host's name. */
export function reporter(hostName: string): (event: Record<string, unknown>) => void {
  return (event) => process.stdout.write(`${JSON.stringify({ host: hostName, ...event })}\n`);
}

/**
 * Starts `host` and says `started`; on SIGTERM stops it, releases what `cleanup` releases, says
 * `stopped` and exits 0.
 */
export async function runHost(
  host: { start(): Promise<void>; stop(): Promise<void> },
  say: (event: Record<string, unknown>) => void,
  cleanup: () => Promise<void>,
): Promise<void> {
  process.on('SIGTERM', async () => {
    await host.stop();
    await cleanup();
    say({ event: 'stopped' });
    process.exit(0);
  });
  await host.start();
  say({ event: 'started' });
}
