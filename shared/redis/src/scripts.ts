// Lua scripts live as files in ../scripts/<name>-<numKeys>.lua (bullmq style) so they can be read,
// diffed and tested as Lua. They are read from disk once per process; each client registers them
// with defineCommand, which runs EVALSHA and falls back to EVAL when the server lacks the script
// (after a restart or failover), so callers never handle NOSCRIPT.
import { readdirSync, readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

export interface ScriptDefinition {
  /** File name without `-<numKeys>.lua`, e.g. `fixed-window`. */
  name: string;
  /** Method name ioredis gets, e.g. `fixedWindow`. */
  commandName: string;
  numberOfKeys: number;
  lua: string;
}

export type ScriptArg = string | number;

const FILE_NAME = /^([a-z0-9]+(?:-[a-z0-9]+)*)-(\d+)\.lua$/;
const SCRIPTS_DIR = new URL('../scripts/', import.meta.url);

let loaded: ReadonlyMap<string, ScriptDefinition> | undefined;
const registered = new WeakSet<Redis>();

function camelCase(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Parses `<name>-<numKeys>.lua`; null for anything else. Exposed for the loader's own tests. */
export function parseScriptFileName(fileName: string): { name: string; numberOfKeys: number } | null {
  const m = FILE_NAME.exec(fileName);
  if (!m || m[1] === undefined || m[2] === undefined) return null;
  return { name: m[1], numberOfKeys: Number(m[2]) };
}

/** Every script in the scripts directory, read on first call and cached for the process. */
export function loadScripts(): ReadonlyMap<string, ScriptDefinition> {
  if (loaded) return loaded;
  const scripts = new Map<string, ScriptDefinition>();
  for (const file of readdirSync(SCRIPTS_DIR).sort()) {
    if (!file.endsWith('.lua')) continue;
    const parsed = parseScriptFileName(file);
    // A misnamed file would silently never be registered; refuse to start instead.
    if (!parsed) throw new Error(`redis script ${file} must be named <name>-<numKeys>.lua`);
    if (scripts.has(parsed.name)) throw new Error(`redis script ${parsed.name} is defined twice`);
    scripts.set(parsed.name, {
      ...parsed,
      commandName: camelCase(parsed.name),
      lua: readFileSync(new URL(file, SCRIPTS_DIR), 'utf8'),
    });
  }
  loaded = scripts;
  return scripts;
}

/** Registers every script on `redis` (idempotent per client). */
export function defineScripts(redis: Redis): void {
  if (registered.has(redis)) return;
  for (const script of loadScripts().values()) {
    // defineCommand would silently shadow a real client method of the same name.
    if (script.commandName in redis) {
      throw new Error(`redis script ${script.name} clashes with an existing client method`);
    }
    redis.defineCommand(script.commandName, { numberOfKeys: script.numberOfKeys, lua: script.lua });
  }
  registered.add(redis);
}

type ScriptMethod = (...args: ScriptArg[]) => Promise<unknown>;

/** Runs a script by file name with a key-count check, so a wrong call fails here, not in Lua. */
export async function runScript(
  redis: Redis,
  name: string,
  keys: readonly string[],
  args: readonly ScriptArg[],
): Promise<unknown> {
  const script = loadScripts().get(name);
  if (!script) throw new Error(`unknown redis script ${name}`);
  if (keys.length !== script.numberOfKeys) {
    throw new TypeError(`redis script ${name} takes ${script.numberOfKeys} keys, got ${keys.length}`);
  }
  defineScripts(redis);
  // defineCommand adds methods at runtime, which the ioredis types cannot know about.
  const method = (redis as unknown as Record<string, ScriptMethod | undefined>)[script.commandName];
  if (!method) throw new Error(`redis script ${name} is not registered on this client`);
  return method.call(redis, ...keys, ...args);
}
