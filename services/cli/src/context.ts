import type { LatticeConfig, Logger } from '@lattice/core';

export interface CommandContext {
  config: LatticeConfig;
  logger: Logger;
}
