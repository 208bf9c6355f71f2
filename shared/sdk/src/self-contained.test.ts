import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'chai';
import { SDK_VERSION } from './version.ts';

// The package's rule, checked: integrators install it alone, so what it ships (src/ but its tests
// and test support) imports nothing but Node's own modules and its own files, and it declares no
// dependency.
const SRC = import.meta.dirname;
const pkg = JSON.parse(readFileSync(join(SRC, '..', 'package.json'), 'utf8')) as Record<string, unknown>;

function shippedFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : shippedFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('@lattice/sdk stands alone', () => {
  it('imports only node: modules and its own files', () => {
    const bad: string[] = [];
    for (const file of shippedFiles(SRC)) {
      const text = readFileSync(file, 'utf8');
      for (const [, spec] of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/g)) {
        const ok =
          spec!.startsWith('node:') ||
          (spec!.startsWith('.') && !relative(SRC, join(file, '..', spec!)).startsWith('..'));
        if (!ok) bad.push(`${relative(SRC, file)}: ${spec}`);
      }
      if (/\bimport\(\s*['"`]/.test(text)) bad.push(`${relative(SRC, file)}: dynamic import`);
    }
    expect(bad).to.deep.equal([]);
  });

  it('declares no dependency, Node 20 or later, and the version it reports', () => {
    expect(pkg.dependencies ?? {}).to.deep.equal({});
    expect(pkg.name).to.equal('@lattice/sdk');
    expect(pkg.type).to.equal('module');
    expect(pkg.engines).to.deep.equal({ node: '>=20' });
    expect(pkg.version).to.equal(SDK_VERSION);
    expect(pkg.exports).to.deep.include({ '.': { types: './dist/index.d.ts', default: './dist/index.js' } });
  });
});
