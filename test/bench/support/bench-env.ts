// A benchmark's settings from its environment (BENCH_* variables), each with the default the
// bench states: a number, or a comma-separated list.

/** `num(name, fallback)` and `list(name, fallback)` (items trimmed, empty ones dropped) over `env`. */
export function benchEnvReaders(env: NodeJS.ProcessEnv) {
  return {
    num: (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback),
    list: (name: string, fallback: string) =>
      (env[name] ?? fallback)
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== ''),
  };
}
