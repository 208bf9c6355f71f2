// A role is one deployable part of Lattice (decisions.md "Name and processes"). Each service
// exports its role module, and every composition root — `lattice start`, `lattice start ROLE`,
// the integration harnesses, the benchmarks — starts roles through these modules alone, so the
// assembly of a role exists once. A role reads only its slice of the configuration (configOf),
// and takes the process-wide resources (connections, the metrics registry) from `shared`, which
// the composition root owns and closes after every role has stopped.
import type { LatticeConfig } from './config.ts';

export interface RoleHealth {
  ok: boolean;
  /** Why not, when not ok (said by `/healthz`). */
  reason?: string;
}

export interface RunningRole {
  /** Stops serving; leaves the shared resources to their owner. */
  close(): Promise<void>;
  health(): RoleHealth;
  /** Where the role answers, for the banner. */
  url?: string;
}

export interface Role<Slice, Shared, Running extends RunningRole = RunningRole> {
  /** `management`, `edge-production`, `actors`: names the role in logs and the banner. */
  readonly name: string;
  /** The part of the deployment's configuration the role reads; tests may change it before start. */
  configOf(config: LatticeConfig): Slice;
  start(slice: Slice, shared: Shared): Promise<Running>;
  /**
   * Where `/metrics` and `/healthz` are served when the role runs alone; absent for a role that
   * serves them itself (management, which serves them for every role when all run together).
   */
  metricsPortOf?(config: LatticeConfig): number;
}
