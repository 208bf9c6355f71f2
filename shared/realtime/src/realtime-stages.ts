// The realtime flow's stage histograms (docs/architecture.md "Where the time goes"): publish
// accepted → produced (the publish route), produced → fetched (the actor host), fetched → applied
// and applied → fanned out (the channel actor), received → pushed and accepted → pushed (the
// gateway).
import { type StageTimer, stageTimer } from '@lattice/kafka';
import type { Registry } from 'prom-client';

export type RealtimeStages = StageTimer<'realtime'>;

export function realtimeStages(registry: Registry): RealtimeStages {
  return stageTimer(registry, 'realtime');
}
