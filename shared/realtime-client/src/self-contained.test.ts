// The package's rule, checked: it depends on @lattice/realtime-protocol only and its sources
// import nothing but that package and files of src/, and use no Node globals, so that esbuild can
// bundle it for browsers. esbuild itself builds the bundle from build.ts, outside src/.
import { describeBrowserSafePackage } from '../../../test/support/browser-safe-package.ts';

describeBrowserSafePackage('realtime-client', {
  srcDir: import.meta.dirname,
  dependencies: { '@lattice/realtime-protocol': '*' },
  devDependencies: ['esbuild'],
  exports: { '.': './src/index.ts', './build': './build.ts' },
  moduleImports: ['@lattice/realtime-protocol'],
  // The bundle's test builds it with the helper.
  testMayImport: (file, spec) => spec === '../build.ts' && file.endsWith('browser-bundle.test.ts'),
});
