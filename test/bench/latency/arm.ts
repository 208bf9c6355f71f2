// What the runner knows of an arm of the latency benchmark, whichever it is: where the publisher
// POSTs, where the subscribers connect (and the token each needs), and the server processes whose
// CPU time is read from /proc during the measured phase.
import type { LatticeConfig } from '@lattice/core';

export const ARM_NAMES = ['lattice-apart', 'lattice-one', 'bare-pipeline'] as const;
export type ArmName = (typeof ARM_NAMES)[number];

export interface ServerProcess {
  /** `edge`, `actors`, … for the CPU breakdown. */
  name: string;
  pid: number;
}

export interface Arm {
  name: ArmName;
  publishUrl: string;
  /** Headers of every publish (the credential for Lattice). */
  headers: Record<string, string>;
  /** Fields every publish body carries besides channel and data (`environment` on management). */
  bodyFields: Record<string, string>;
  /** The roles' /metrics, where the stage histograms are read (none for the bare pipeline). */
  metricsUrls: string[];
  /** `ws://…` the subscribers connect to. */
  wsUrl: string;
  processes: ServerProcess[];
  /** A token per channel for the subscribers (Lattice), or null when the server takes none. */
  tokens(channels: string[]): Promise<Map<string, string> | null>;
  /** Stops every process of the arm and removes what it created (topics, groups, tables). */
  stop(): Promise<void>;
}

/** What every arm is started with. */
export interface ArmContext {
  /** A short id of the run, in every topic, group, key prefix and table the run creates. */
  runId: string;
  config: LatticeConfig;
  /** The benchmark database (migrated), shared by the arms; each Lattice arm has its own product. */
  databaseUrl: string;
  /** LATTICE_SECRET_KEYS of the Lattice processes: the keyring the database's signing keys are sealed with. */
  secretKeys: string;
  /** Partitions of every topic (Lattice's catalog and the bare pipeline's). */
  partitions: number;
  /** kafkajs partitionsConsumedConcurrently of the bare pipeline's consumer. */
  barePartitionsConcurrency: number;
  /**
   * Where the Lattice arms publish: the management API (the benchmarks' rule for loads beyond a
   * product's default limits: no per-IP limit applies there) or the public edge with a key (its
   * per-IP limit raised out of the way).
   */
  publishDoor: 'management' | 'edge';
  /** LOG_LEVEL of every Lattice process (the production default unless BENCH_LOG_LEVEL says). */
  logLevel: string;
  /** When set, every Lattice process writes a V8 CPU profile there when it stops (`--cpu-prof`). */
  cpuProfileDir: string | null;
  log(line: string): void;
}
