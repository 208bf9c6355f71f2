// `npm run sdk:generate`: writes the SDK's generated files (src/generated/) from the management
// catalog, the public edge's keyed routes and schemas/http. `--check` writes nothing and exits 1
// when a file is stale.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateSdkSources, REPO_ROOT } from './sdk-sources.ts';

const check = process.argv.includes('--check');
let stale = 0;
for (const [path, text] of await generateSdkSources()) {
  const file = join(REPO_ROOT, path);
  const current = await readFile(file, 'utf8').catch(() => undefined);
  if (current === text) continue;
  stale++;
  if (check) console.error(`stale: ${path}`);
  else {
    await writeFile(file, text);
    console.log(`wrote ${path}`);
  }
}
if (check && stale > 0) process.exit(1);
if (!check && stale === 0) console.log('generated files are up to date');
