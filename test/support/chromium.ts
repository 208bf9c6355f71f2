// Real headless Chromium for the browser tests: Debian's package (npm's browser downloads do not
// work on the project machines), driven by playwright-core. scripts/test.sh installs it and names
// it in CHROMIUM_PATH; run alone, a test asks the same script.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';

function chromiumPath(): string {
  const named = process.env.CHROMIUM_PATH;
  if (named) return named;
  const script = fileURLToPath(new URL('../../scripts/ensure-chromium.sh', import.meta.url));
  return execFileSync('bash', [script], { encoding: 'utf8' }).trim();
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // The suite may run as root, where Chromium's sandbox cannot start.
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
}
