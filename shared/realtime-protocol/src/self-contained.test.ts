// The package's rule, checked: it has no dependencies and its sources import nothing from outside
// src/, so that esbuild can bundle it for browsers. Tests may use chai and node: modules besides.
import { join } from 'node:path';
import { expect } from 'chai';
import {
  code,
  describeBrowserSafePackage,
  insideSrc,
  specifiers,
} from '../../../test/support/browser-safe-package.ts';

describeBrowserSafePackage('realtime-protocol', {
  srcDir: import.meta.dirname,
  exports: { '.': './src/index.ts' },
});

describe('browser-safe package check', () => {
  it('notices a foreign import (the check itself works)', () => {
    // Written in capitals so that a scan of this file does not take the samples for imports.
    const sample = (text: string) => text.replace(/IMPORT|EXPORT|FROM/g, (word) => word.toLowerCase());
    const foreign = sample(
      "IMPORT { x } FROM './a.ts';\nIMPORT type { Redis } FROM 'ioredis';\nEXPORT * FROM \"node:fs\";\nawait IMPORT('ws');",
    );
    expect(specifiers(foreign)).to.have.members(['./a.ts', 'ioredis', 'node:fs', 'ws']);
    expect(specifiers(code(sample('// IMPORT { x } FROM "ioredis";\n/* IMPORT "ws" */')))).to.deep.equal([]);
    const src = '/p/src';
    const file = join(src, 'client.ts');
    expect(insideSrc(src, file, './cursor.ts')).to.equal(true);
    expect(insideSrc(src, file, '../build.ts')).to.equal(false);
    expect(insideSrc(src, file, '../../realtime-protocol/src/index.ts')).to.equal(false);
  });
});
