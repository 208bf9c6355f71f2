#!/usr/bin/env node
// The `lattice` command. Lattice is TypeScript run through tsx on the project's pinned Node.
const [major] = process.versions.node.split('.').map(Number);
if (major < 26) {
  console.error(`lattice needs Node 26 or newer (this is ${process.version}); run it through npm or npx.`);
  process.exit(1);
}
const { register } = await import('tsx/esm/api');
register();
await import('../src/main.ts');
