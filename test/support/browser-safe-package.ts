// The rule of the packages esbuild bundles for browsers (@lattice/realtime-protocol and
// @lattice/realtime-client), checked once for both: the dependencies they declare, sources that
// import only what is allowed (their own src/ files, named packages) and use no Node globals,
// and tests that import only src/, chai, node: modules and what the package names besides.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect } from 'chai';

export interface BrowserSafePackage {
  /** The package's src/ folder. */
  srcDir: string;
  /** package.json's `dependencies`, exactly (undefined: none at all). */
  dependencies?: Record<string, string>;
  /** The names of its devDependencies (build tools outside src/); default none. */
  devDependencies?: string[];
  exports: Record<string, string>;
  /** Packages its modules may import besides their own src/ files. */
  moduleImports?: string[];
  /** Whether a test file may import this specifier besides src/, chai, node: and moduleImports. */
  testMayImport?: (file: string, spec: string) => boolean;
}

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
export function specifiers(text: string): string[] {
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
export function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"])\/\/.*$/gm, '$1');
}

/** Whether `spec`, imported by `file`, is a file inside `srcDir`. */
export function insideSrc(srcDir: string, file: string, spec: string): boolean {
  return (
    (spec.startsWith('./') || spec.startsWith('../')) &&
    !relative(srcDir, resolve(dirname(file), spec)).startsWith('..')
  );
}

const NODE_GLOBALS = ['Buffer', 'process', 'require', '__dirname', '__filename', 'global', 'setImmediate'];

export function describeBrowserSafePackage(name: string, pkg: BrowserSafePackage): void {
  const { srcDir } = pkg;
  const allowed = new Set(pkg.moduleImports ?? []);

  describe(`${name} stays browser-safe`, () => {
    it('declares only the dependencies it is allowed', () => {
      const json = JSON.parse(readFileSync(join(dirname(srcDir), 'package.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      if (pkg.dependencies === undefined) expect(json, 'dependencies').to.not.have.property('dependencies');
      else expect(json.dependencies).to.deep.equal(pkg.dependencies);
      expect(Object.keys((json.devDependencies as object | undefined) ?? {})).to.deep.equal(
        pkg.devDependencies ?? [],
      );
      for (const field of ['peerDependencies', 'optionalDependencies']) {
        expect(json, field).to.not.have.property(field);
      }
      expect(json.exports).to.deep.equal(pkg.exports);
    });

    const files = sourceFiles(srcDir);
    const modules = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

    it('has only TypeScript sources', () => {
      expect(files.map((f) => relative(srcDir, f)).filter((f) => !f.endsWith('.ts'))).to.deep.equal([]);
      expect(modules.map((f) => relative(srcDir, f))).to.include('index.ts');
    });

    it('imports only files of src/ and the packages it may in its modules', () => {
      for (const file of modules) {
        for (const spec of specifiers(code(readFileSync(file, 'utf8')))) {
          const where = `${relative(srcDir, file)} imports ${JSON.stringify(spec)}`;
          expect(allowed.has(spec) || insideSrc(srcDir, file, spec), where).to.equal(true);
        }
      }
    });

    it('uses no Node globals in its modules (Buffer, process, require, __dirname)', () => {
      for (const file of modules) {
        const text = code(readFileSync(file, 'utf8'));
        for (const global of NODE_GLOBALS) {
          expect(
            new RegExp(`\\b${global}\\b`).test(text),
            `${relative(srcDir, file)} uses ${global}`,
          ).to.equal(false);
        }
      }
    });

    it('lets its tests import only src/, its packages, chai, node: modules and the shared check', () => {
      for (const file of files.filter((f) => f.endsWith('.test.ts'))) {
        for (const spec of specifiers(code(readFileSync(file, 'utf8')))) {
          const ok =
            insideSrc(srcDir, file, spec) ||
            allowed.has(spec) ||
            spec === 'chai' ||
            spec.startsWith('node:') ||
            spec.endsWith('/test/support/browser-safe-package.ts') ||
            (pkg.testMayImport?.(file, spec) ?? false);
          expect(ok, `${relative(srcDir, file)}: ${spec}`).to.equal(true);
        }
      }
    });
  });
}
