// Commands run as an integrator's shell would run them (npm pack, npm install, node), for the
// tests that install the packages outside the repository.
import { spawn } from 'node:child_process';
import { delimiter, dirname } from 'node:path';

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a shell outside any npm run: without npm's settings (npm_config_local_prefix
 * would point a child npm at this repository) or NODE_OPTIONS (tsx), with this Node first on PATH.
 */
export function plainEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^npm_/i.test(k) && k !== 'NODE_OPTIONS' && k !== 'INIT_CWD',
    ),
  );
  return { ...env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` };
}

export function run(command: string, args: string[], cwd: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: plainEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The command's standard output; throws with both outputs when it does not exit 0. */
export async function runOk(command: string, args: string[], cwd: string): Promise<string> {
  const ran = await run(command, args, cwd);
  if (ran.code !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} (in ${cwd}) exited ${ran.code}:\n${ran.stdout}\n${ran.stderr}`,
    );
  }
  return ran.stdout;
}
