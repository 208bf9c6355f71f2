// The package's rule, checked: it depends on @lattice/realtime-protocol only and its sources
// import nothing but that package and files of src/, and use no Node globals, so that esbuild can
// bundle it for browsers. Tests may use chai and node: modules besides, and the bundle's test the
// build helper outside src/.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect } from 'chai';

const srcDir = import.meta.dirname;
const packageDir = dirname(srcDir);
const PROTOCOL = '@lattice/realtime-protocol';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : /\.(ts|js|mjs|cjs|json)$/.test(e.name)
        ? [join(dir, e.name)]
        : [],
  );
}

/** Every module specifier in the text: static imports and re-exports, import(), require(). */
function specifiers(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\s*\(\s*['"`]([^'"`]*)['"`]?/g,
    /\brequire\s*\(\s*['"`]?([^'"`)]*)/g,
  ];
  for (const re of patterns) for (const m of text.matchAll(re)) found.push(m[1] ?? '');
  return found;
}

/** The text without comments (enough for these sources: no string holds `//` or `/*`). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"])\/\/.*$/gm, '$1');
}

/** Whether `spec`, imported by `file`, is a file inside src/. */
function insideSrc(file: string, spec: string): boolean {
  return (
    (spec.startsWith('./') || spec.startsWith('../')) &&
    !relative(srcDir, resolve(dirname(file), spec)).startsWith('..')
  );
}

describe('realtime-client stays browser-safe', () => {
  it('depends on @lattice/realtime-protocol only', () => {
    const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg.dependencies).to.deep.equal({ [PROTOCOL]: '*' });
    for (const field of ['peerDependencies', 'optionalDependencies']) {
      expect(pkg, field).to.not.have.property(field);
    }
    // esbuild builds the bundle (build.ts, outside src/, Node-only); the bundle holds none of it.
    expect(Object.keys((pkg.devDependencies as object | undefined) ?? {})).to.deep.equal(['esbuild']);
    expect(pkg.exports).to.deep.equal({ '.': './src/index.ts', './build': './build.ts' });
  });

  const files = sourceFiles(srcDir);
  const modules = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

  it('has only TypeScript sources', () => {
    expect(files.map((f) => relative(srcDir, f)).filter((f) => !f.endsWith('.ts'))).to.deep.equal([]);
    expect(modules.map((f) => relative(srcDir, f))).to.include('index.ts');
  });

  it('imports only the protocol package and files of src/ in its modules', () => {
    for (const file of modules) {
      for (const spec of specifiers(code(readFileSync(file, 'utf8')))) {
        const where = `${relative(srcDir, file)} imports ${JSON.stringify(spec)}`;
        expect(spec === PROTOCOL || insideSrc(file, spec), where).to.equal(true);
      }
    }
  });

  it('uses no Node globals in its modules (Buffer, process, require, __dirname)', () => {
    for (const file of modules) {
      const text = code(readFileSync(file, 'utf8'));
      for (const name of [
        'Buffer',
        'process',
        'require',
        '__dirname',
        '__filename',
        'global',
        'setImmediate',
      ]) {
        expect(new RegExp(`\\b${name}\\b`).test(text), `${relative(srcDir, file)} uses ${name}`).to.equal(
          false,
        );
      }
    }
  });

  it('lets its tests import only src/, the protocol, chai, node: modules (and the bundle test the build helper)', () => {
    for (const file of files.filter((f) => f.endsWith('.test.ts'))) {
      for (const spec of specifiers(code(readFileSync(file, 'utf8')))) {
        const buildHelper = spec === '../build.ts' && file.endsWith('browser-bundle.test.ts');
        expect(
          insideSrc(file, spec) ||
            buildHelper ||
            spec === PROTOCOL ||
            spec === 'chai' ||
            spec.startsWith('node:'),
          `${relative(srcDir, file)}: ${spec}`,
        ).to.equal(true);
      }
    }
  });

  it('notices a foreign import (the check itself works)', () => {
    // Written in capitals so that the scan of this file does not take the samples for imports.
    const sample = (text: string) => text.replace(/IMPORT|EXPORT|FROM/g, (word) => word.toLowerCase());
    const foreign = sample(
      "IMPORT { x } FROM './a.ts';\nIMPORT type { Redis } FROM 'ioredis';\nEXPORT * FROM \"node:fs\";\nawait IMPORT('ws');",
    );
    expect(specifiers(foreign)).to.have.members(['./a.ts', 'ioredis', 'node:fs', 'ws']);
    expect(specifiers(code(sample('// IMPORT { x } FROM "ioredis";\n/* IMPORT "ws" */')))).to.deep.equal([]);
    const file = join(srcDir, 'client.ts');
    expect(insideSrc(file, './cursor.ts')).to.equal(true);
    expect(insideSrc(file, '../build.ts')).to.equal(false);
    expect(insideSrc(file, '../../realtime-protocol/src/index.ts')).to.equal(false);
  });
});
