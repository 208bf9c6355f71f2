// Writes dist/, what the package ships (`npm run build` here; `npm pack` runs it as prepack):
//   index.js             ES module for Node 22+ and bundlers, @lattice/realtime-protocol inlined
//   lattice-realtime.js  the same module for browsers, one file for a <script type="module">
//   *.d.ts               declarations of the public API (tsc), with the protocol's types it names
//                        copied under protocol/, so that nothing refers to a workspace package
// Run from this repository (esbuild and TypeScript are its development tools).
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, posix, relative, sep } from 'node:path';
import ts from 'typescript';
import { buildBrowserBundle } from './build.ts';

const PACKAGE_DIR = import.meta.dirname;
const SHARED_DIR = dirname(PACKAGE_DIR);
const DIST_DIR = join(PACKAGE_DIR, 'dist');
const PROTOCOL = '@lattice/realtime-protocol';
/** Where the protocol's declarations go, relative to dist/. */
const PROTOCOL_DIR = 'protocol';

/** The declarations tsc emits for src/index.ts and what it imports, keyed by their path under dist/. */
function emitDeclarations(): Map<string, string> {
  const program = ts.createProgram([join(PACKAGE_DIR, 'src', 'index.ts')], {
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: SHARED_DIR,
    outDir: '/dist',
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
    strict: true,
    noUncheckedIndexedAccess: true,
    // The sources are browser code: the DOM's timers, no Node types.
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    skipLibCheck: true,
    // Resolved as a file of this program, not as a library under node_modules, so tsc emits it.
    paths: { [PROTOCOL]: [join(SHARED_DIR, 'realtime-protocol', 'src', 'index.ts')] },
  });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const outputs = new Map<string, string>();
  const emitted = program.emit(undefined, (fileName, text) => {
    // /dist/realtime-client/src/x.d.ts → x.d.ts; /dist/realtime-protocol/src/x.d.ts → protocol/x.d.ts
    const [pkg, src, ...rest] = posix.relative('/dist', fileName).split('/');
    if (src !== 'src') throw new Error(`unexpected declaration output ${fileName}`);
    // The sources import './x.ts'; tsc keeps that in declarations, where it must be './x.js'.
    const declarations = text.replace(/(\bfrom\s*['"]|\bimport\(['"])(\.[^'"]*)\.ts(['"])/g, '$1$2.js$3');
    if (pkg === 'realtime-client') outputs.set(rest.join('/'), declarations);
    else if (pkg === 'realtime-protocol') outputs.set([PROTOCOL_DIR, ...rest].join('/'), declarations);
    else throw new Error(`unexpected declaration output ${fileName}`);
  });
  const problems = [...diagnostics, ...emitted.diagnostics];
  if (problems.length > 0) {
    const host = {
      getCanonicalFileName: (f: string) => f,
      getCurrentDirectory: () => PACKAGE_DIR,
      getNewLine: () => '\n',
    };
    throw new Error(ts.formatDiagnostics(problems, host));
  }
  return outputs;
}

/** The names the client's declarations take from the protocol (imports, re-exports, import("…") types). */
function protocolNamesUsed(source: ts.SourceFile): string[] {
  const names: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      node.moduleSpecifier.text === PROTOCOL
    ) {
      const bindings = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : node.exportClause;
      if (!bindings || !(ts.isNamedImports(bindings) || ts.isNamedExports(bindings))) {
        throw new Error(`${source.fileName}: only named imports from ${PROTOCOL} can be inlined`);
      }
      for (const e of bindings.elements) names.push((e.propertyName ?? e.name).text);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal) &&
      node.argument.literal.text === PROTOCOL
    ) {
      if (!node.qualifier || !ts.isIdentifier(node.qualifier)) {
        throw new Error(`${source.fileName}: an import("${PROTOCOL}") type without a plain name`);
      }
      names.push(node.qualifier.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

/** The protocol's index.d.ts re-exporting only `names` (each from the file that declares it). */
function protocolIndex(text: string, names: Set<string>): string {
  const source = ts.createSourceFile('index.d.ts', text, ts.ScriptTarget.ES2022, true);
  const printer = ts.createPrinter();
  const found = new Set<string>();
  const kept: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement) || !statement.exportClause) continue;
    if (!ts.isNamedExports(statement.exportClause)) continue;
    const elements = statement.exportClause.elements.filter((e) => names.has(e.name.text));
    if (elements.length === 0) continue;
    for (const e of elements) found.add(e.name.text);
    const narrowed = ts.factory.updateExportDeclaration(
      statement,
      statement.modifiers,
      statement.isTypeOnly,
      ts.factory.updateNamedExports(statement.exportClause, elements),
      statement.moduleSpecifier,
      statement.attributes,
    );
    kept.push(printer.printNode(ts.EmitHint.Unspecified, narrowed, source));
  }
  const missing = [...names].filter((n) => !found.has(n));
  if (missing.length > 0) throw new Error(`${PROTOCOL} does not export ${missing.join(', ')}`);
  return kept.length > 0 ? `${kept.join('\n')}\n` : 'export {};\n';
}

/** The relative specifiers of a declaration file (`from './x.js'`, `import("./x.js")`). */
function relativeSpecifiers(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\()['"](\.[^'"]*)['"]/g)].map((m) => m[1]!);
}

/** The files of `files` that `start` reaches through relative imports, without entering `stopAt/`. */
function reachable(files: Map<string, string>, start: string, stopAt?: string): Map<string, string> {
  const reached = new Map<string, string>();
  const queue = [start];
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    if (reached.has(path) || (stopAt && path.startsWith(`${stopAt}/`))) continue;
    const text = files.get(path);
    if (text === undefined) throw new Error(`a declaration imports ${path}, which tsc did not emit`);
    reached.set(path, text);
    for (const spec of relativeSpecifiers(text)) {
      queue.push(posix.join(posix.dirname(path), spec.replace(/\.js$/, '.d.ts')));
    }
  }
  return reached;
}

/**
 * The declarations under dist/: those index.d.ts reaches, its imports from the protocol pointed
 * at protocol/index.d.ts, which re-exports only the names they take; then the protocol's files
 * those names reach (not its frame parser or fan-out encoding).
 */
export function buildDeclarations(): Map<string, string> {
  const emitted = emitDeclarations();
  const isProtocol = (path: string) => path.startsWith(`${PROTOCOL_DIR}/`);
  const client = reachable(
    new Map([...emitted].filter(([path]) => !isProtocol(path))),
    'index.d.ts',
    PROTOCOL_DIR,
  );
  const names = new Set<string>();
  const files = new Map<string, string>();
  for (const [path, text] of client) {
    for (const n of protocolNamesUsed(ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true)))
      names.add(n);
    const toProtocol = posix.relative(posix.dirname(path), `${PROTOCOL_DIR}/index.js`);
    const specifier = toProtocol.startsWith('.') ? toProtocol : `./${toProtocol}`;
    files.set(
      path,
      text.replaceAll(`'${PROTOCOL}'`, `'${specifier}'`).replaceAll(`"${PROTOCOL}"`, `"${specifier}"`),
    );
  }
  const protocol = new Map([...emitted].filter(([path]) => isProtocol(path)));
  const index = `${PROTOCOL_DIR}/index.d.ts`;
  protocol.set(index, protocolIndex(protocol.get(index) ?? '', names));
  for (const [path, text] of reachable(protocol, index)) files.set(path, text);
  for (const [path, text] of files) {
    if (/['"]@lattice\//.test(text)) throw new Error(`${path} still refers to a workspace package`);
  }
  return files;
}

/** Writes dist/ afresh; returns the paths written, relative to the package. */
export async function buildDist(): Promise<string[]> {
  const { version } = JSON.parse(await readFile(join(PACKAGE_DIR, 'package.json'), 'utf8')) as {
    version: string;
  };
  const banner = `// @lattice/realtime-client ${version}: the client of the Lattice realtime WebSocket protocol.`;
  const outputs = new Map<string, string>([
    ['index.js', await buildBrowserBundle({ platform: 'neutral', banner })],
    ['lattice-realtime.js', await buildBrowserBundle({ platform: 'browser', banner })],
    ...buildDeclarations(),
  ]);
  await rm(DIST_DIR, { recursive: true, force: true });
  const written: string[] = [];
  for (const [path, text] of outputs) {
    const file = join(DIST_DIR, ...path.split('/'));
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
    written.push(relative(PACKAGE_DIR, file).split(sep).join('/'));
  }
  return written.sort();
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const written = await buildDist();
  console.log(`wrote ${written.join(', ')}`);
}
