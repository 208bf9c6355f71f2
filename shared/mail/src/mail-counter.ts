// The counters of the mail toolkit's parts, each registered once per registry: several parts (or
// several hosts in one process: tests, the all-in-one `lattice start`) share one registry. Labels
// are always bounded values (outcomes, types, reasons), never addresses or ids.
import { Counter, type Registry } from 'prom-client';

export function mailCounter<L extends string = never>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[] = [],
): Counter<L> {
  return (
    (registry.getSingleMetric(name) as Counter<L> | undefined) ??
    new Counter({ name, help, labelNames, registers: [registry] })
  );
}
