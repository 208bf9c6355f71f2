// The chaos run's role processes beyond what the soak's processes.ts gives it: the inbound SMTP
// receiver (`lattice start inbound`, ready once its /healthz answers), a stop that cannot hang,
// and the wait until every edge accepts a new key.
import type { ChildProcess } from 'node:child_process';
import { sleep } from '@lattice/core';
import type { SoakProcess } from '../soak/processes.ts';
import { freePort, startPlatform } from '../support/lattice-process.ts';

/** What the run needs of a role process, whichever module started it. */
export type RoleHandle = Pick<
  SoakProcess,
  'name' | 'url' | 'metricsUrl' | 'running' | 'start' | 'stop' | 'output'
>;

/** SIGTERM (a gateway drains), SIGKILL after 20 s. */
export async function stopBounded(p: RoleHandle): Promise<void> {
  const done = p.stop('SIGTERM').then(() => true);
  if (!(await Promise.race([done, sleep(20_000).then(() => false)]))) await p.stop('SIGKILL');
}

/** Waits until every edge accepts the new key (by the change notification or its next snapshot). */
export async function edgesKnow(edges: string[], productId: string, key: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (const edge of edges) {
    for (;;) {
      const res = await fetch(`${edge}/${productId}/realtime/channels/soak:probe/history?last_n=1`, {
        headers: { authorization: `Bearer ${key}` },
      });
      if (res.status === 200) break;
      if (Date.now() > deadline) throw new Error(`${edge} never accepted the run's key: ${res.status}`);
      await sleep(200);
    }
  }
}

/**
 * `lattice start inbound` (its SMTP receiver and its /healthz), for checkouts that have the role:
 * ready once its metrics port answers /healthz 200.
 */
export async function inboundProcess(env: () => Record<string, string>): Promise<RoleHandle> {
  const smtpPort = await freePort();
  const metricsPort = await freePort();
  let child: ChildProcess | null = null;
  let output = () => '';
  const metricsUrl = `http://127.0.0.1:${metricsPort}`;
  return {
    name: 'inbound-1',
    url: `smtp://127.0.0.1:${smtpPort}`,
    metricsUrl,
    running: () => child !== null && child.exitCode === null && child.signalCode === null,
    async start() {
      const started = await startPlatform(
        { ...env(), INBOUND_SMTP_PORT: String(smtpPort), INBOUND_METRICS_PORT: String(metricsPort) },
        ['inbound'],
        'role running',
      );
      child = started.child;
      output = () => started.output().slice(-64 * 1024);
      const deadline = Date.now() + 30_000;
      for (;;) {
        const ok = await fetch(`${metricsUrl}/healthz`).then(
          (r) => r.status === 200,
          () => false,
        );
        if (ok) return;
        if (Date.now() > deadline) throw new Error(`inbound: /healthz not 200 within 30 s\n${output()}`);
        await sleep(200);
      }
    },
    async stop(signal) {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
      c.kill(signal);
      await exited;
    },
    output: () => output(),
  };
}
