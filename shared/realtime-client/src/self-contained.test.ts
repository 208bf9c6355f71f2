// The package's rule, checked: its sources import nothing but @lattice/realtime-protocol and files
// of src/, and use no Node globals, so that esbuild can bundle them for browsers. It ships built
// files only (dist/, by build-dist.ts outside src/, the protocol inlined), so it declares no
// dependencies: the protocol, esbuild and TypeScript are development tools of its build.
import { describeBrowserSafePackage } from '../../../test/support/browser-safe-package.ts';

/** package.json's `exports`: the built module and declarations, the browser bundle, package.json. */
const EXPORTS = {
  '.': { types: './dist/index.d.ts', import: './dist/index.js', default: './dist/index.js' },
  './lattice-realtime.js': { types: './dist/index.d.ts', default: './dist/lattice-realtime.js' },
  './package.json': './package.json',
};

describeBrowserSafePackage('realtime-client', {
  srcDir: import.meta.dirname,
  devDependencies: ['@lattice/realtime-protocol', 'esbuild', 'typescript'],
  // The check compares the JSON as it is; its type names the flat exports of the other package.
  exports: EXPORTS as unknown as Record<string, string>,
  moduleImports: ['@lattice/realtime-protocol'],
  testMayImport: (file, spec) =>
    // The bundle's test builds it with the helper.
    (spec === '../build.ts' && file.endsWith('browser-bundle.test.ts')) ||
    // The packed package's test runs a platform and Chromium with the suite's support, and
    // writes programs that import the installed package.
    (file.endsWith('package.int.test.ts') &&
      (spec.startsWith('../../../test/') ||
        spec === 'playwright-core' ||
        spec === '@lattice/realtime-client' ||
        spec === '@lattice/realtime-client/lattice-realtime.js')),
});
