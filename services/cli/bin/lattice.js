#!/usr/bin/env node
// The `lattice` command. Lattice is TypeScript run through tsx on the project's pinned Node.
const [major] = process.versions.node.split('.').map(Number);
if (major < 26) {
  console.error(`lattice needs Node 26 or newer (this is ${process.version}); run it through npm or npx.`);
  process.exit(1);
}
const { register } = await import('tsx/esm/api');
// The repository's tsconfig, wherever the command runs from: its `paths` send in-repo imports of
// the installable packages (@lattice/realtime-client) to their sources rather than their builds.
register({ tsconfig: new URL('../../../tsconfig.json', import.meta.url).pathname });
await import('../src/main.ts');
