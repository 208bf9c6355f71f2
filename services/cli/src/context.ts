import type { LatticeConfig, Logger } from '@lattice/core';
import type { PublishQuota } from '@lattice/realtime';

export interface CommandContext {
  config: LatticeConfig;
  logger: Logger;
  /** Per-product publish quota of this deployment (REALTIME_PUBLISH_* variables). */
  publishQuota: PublishQuota;
}
