// Edge metrics (prom-client). `lattice start` runs both edges in one process on one registry, so
// each metric is created once per registry and labelled with the environment; the snapshot
// gauges read every edge registered on that registry when scraped. Labels are bounded: the
// environment, a reload trigger, a policy name, or an outcome code from a fixed list.
import type { Clock, Environment } from '@lattice/core';
import { Counter, Gauge, type Registry } from 'prom-client';
import { PER_IP_POLICY_NAME } from './per-ip-limit.ts';

export type ReloadTrigger = 'start' | 'timer' | 'notification' | 'manual';

export interface SnapshotStats {
  /** Keys in the current snapshot; null before the first successful load. */
  size: number | null;
  loadedAtMs: number | null;
  /** How old a snapshot may get before keyed routes answer 503 (PUBLIC_KEY_SNAPSHOT_MAX_AGE_MS). */
  maxAgeMs: number;
}

/** What one edge reports; created by edgeMetrics() for its environment. */
export interface EdgeMetrics {
  snapshotReloaded(trigger: ReloadTrigger, durationMs: number): void;
  snapshotReloadFailed(trigger: ReloadTrigger): void;
  /** Once per answered request: `passed` or the error code the edge answered with. */
  requestOutcome(outcome: string): void;
  /** A rate-limit decision made by the local limiter because Redis was unavailable. */
  rateLimitFallback(policy: string): void;
  /** Starts reporting the snapshot gauges of this edge; returns the function that stops it. */
  watchSnapshot(stats: () => SnapshotStats): () => void;
}

interface Family {
  reloads: Counter<'environment' | 'trigger'>;
  reloadFailures: Counter<'environment' | 'trigger'>;
  reloadSeconds: Counter<'environment'>;
  requests: Counter<'environment' | 'outcome'>;
  fallbacks: Counter<'environment' | 'policy'>;
  snapshots: Map<Environment, () => SnapshotStats>;
  /** Moves the request counts each edge keeps in plain numbers into `requests`; run on scrape. */
  requestFlushers: Set<() => void>;
}

const families = new WeakMap<Registry, Family>();

function familyOn(registry: Registry, clock: Clock): Family {
  const existing = families.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const snapshots = new Map<Environment, () => SnapshotStats>();
  const requestFlushers = new Set<() => void>();
  new Gauge({
    name: 'lattice_edge_key_snapshot_keys',
    help: 'Public keys in the edge snapshot (active plus revoked within the last window)',
    labelNames: ['environment'],
    registers,
    collect() {
      this.reset();
      for (const [environment, stats] of snapshots) {
        const { size } = stats();
        if (size !== null) this.set({ environment }, size);
      }
    },
  });
  new Gauge({
    name: 'lattice_edge_key_snapshot_age_seconds',
    help: 'Seconds since the last successful key snapshot load, also while a snapshot too old is withheld (absent before the first load)',
    labelNames: ['environment'],
    registers,
    collect() {
      this.reset();
      for (const [environment, stats] of snapshots) {
        const { loadedAtMs } = stats();
        if (loadedAtMs !== null) this.set({ environment }, (clock.nowMs() - loadedAtMs) / 1000);
      }
    },
  });
  new Gauge({
    name: 'lattice_edge_key_snapshot_max_age_seconds',
    help: 'How old the key snapshot may get before keyed routes answer 503 public_config_unavailable (alerts compare the age with it)',
    labelNames: ['environment'],
    registers,
    collect() {
      this.reset();
      for (const [environment, stats] of snapshots) this.set({ environment }, stats().maxAgeMs / 1000);
    },
  });
  const family: Family = {
    reloads: new Counter({
      name: 'lattice_edge_key_snapshot_reloads_total',
      help: 'Successful key snapshot loads, by trigger',
      labelNames: ['environment', 'trigger'],
      registers,
    }),
    reloadFailures: new Counter({
      name: 'lattice_edge_key_snapshot_reload_failures_total',
      help: 'Failed key snapshot loads (the previous snapshot stays in use up to its maximum age)',
      labelNames: ['environment', 'trigger'],
      registers,
    }),
    reloadSeconds: new Counter({
      name: 'lattice_edge_key_snapshot_reload_seconds_total',
      help: 'Time spent loading key snapshots',
      labelNames: ['environment'],
      registers,
    }),
    requests: new Counter({
      name: 'lattice_edge_requests_total',
      help: 'Requests answered by the edge: passed to a toolkit, or the refusal code',
      labelNames: ['environment', 'outcome'],
      registers,
      collect() {
        for (const flush of requestFlushers) flush();
      },
    }),
    fallbacks: new Counter({
      name: 'lattice_edge_rate_limit_fallbacks_total',
      help: 'Rate-limit decisions made by the local limiter because Redis was unavailable',
      labelNames: ['environment', 'policy'],
      registers,
    }),
    snapshots,
    requestFlushers,
  };
  families.set(registry, family);
  return family;
}

export function edgeMetrics(registry: Registry, environment: Environment, clock: Clock): EdgeMetrics {
  const f = familyOn(registry, clock);
  // Every request counts once. Even a pre-bound prom-client child hashes and validates its labels
  // on each inc(), so the edge counts in plain numbers (one per outcome, a bounded set) and moves
  // them into the counter when it is scraped: the exported values are the same.
  let passed = 0;
  const refused = new Map<string, number>();
  // Exported at 0 from the start, so rate() and increase() see the first one.
  f.requests.inc({ environment, outcome: 'passed' }, 0);
  f.fallbacks.inc({ environment, policy: PER_IP_POLICY_NAME }, 0);
  f.requestFlushers.add(() => {
    if (passed > 0) {
      f.requests.inc({ environment, outcome: 'passed' }, passed);
      passed = 0;
    }
    for (const [outcome, count] of refused) {
      if (count > 0) f.requests.inc({ environment, outcome }, count);
      refused.set(outcome, 0);
    }
  });
  return {
    snapshotReloaded(trigger, durationMs) {
      f.reloads.inc({ environment, trigger });
      f.reloadSeconds.inc({ environment }, durationMs / 1000);
    },
    snapshotReloadFailed: (trigger) => f.reloadFailures.inc({ environment, trigger }),
    requestOutcome(outcome) {
      if (outcome === 'passed') passed += 1;
      else refused.set(outcome, (refused.get(outcome) ?? 0) + 1);
    },
    rateLimitFallback: (policy) => f.fallbacks.inc({ environment, policy }),
    watchSnapshot(stats) {
      f.snapshots.set(environment, stats);
      return () => {
        if (f.snapshots.get(environment) === stats) f.snapshots.delete(environment);
      };
    },
  };
}
