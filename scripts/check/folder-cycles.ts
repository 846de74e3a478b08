/**
 * The folder-level cycle check of `npm run gate`: src/'s top folders (and its loose files) must import one another
 * in one direction only, type imports included. Biome's noImportCycles finds cycles between files; a cycle between
 * folders (eval imports cache, cache imports eval, through different files) is none of those, and is what lets a
 * folder stop answering one question. Imports are resolved as tsc resolves them (tsconfig.json), so `.js`
 * specifiers find their `.ts` files. Exits 1 and names every import on each cycle found.
 */
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '../..');
const sourceRoot = path.join(root, 'src');

function compilerSetup(): ts.ParsedCommandLine {
  const configFile = path.join(root, 'tsconfig.json');
  const parsed = ts.getParsedCommandLineOfConfigFile(configFile, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (parsed === undefined) throw new Error(`cannot read ${configFile}`);
  return parsed;
}

/** src/engine/collator.ts → engine; src/index.ts → index.ts (a loose file is a unit of its own). */
function unitOf(file: string): string {
  const relative = path.relative(sourceRoot, file);
  const [first, ...rest] = relative.split(path.sep);
  return rest.length === 0 ? relative : (first ?? relative);
}

/** Every import and re-export of every source file, as resolved file → file edges inside src/. */
function fileImports(setup: ts.ParsedCommandLine): Map<string, string[]> {
  const imports = new Map<string, string[]>();
  for (const file of setup.fileNames.map((name) => path.resolve(name))) {
    const { importedFiles } = ts.preProcessFile(ts.sys.readFile(file) ?? '', true, true);
    const targets: string[] = [];
    for (const { fileName } of importedFiles) {
      const resolved = ts.resolveModuleName(fileName, file, setup.options, ts.sys).resolvedModule;
      if (resolved !== undefined && !resolved.isExternalLibraryImport && resolved.resolvedFileName.startsWith(sourceRoot + path.sep)) {
        targets.push(path.resolve(resolved.resolvedFileName));
      }
    }
    imports.set(file, targets);
  }
  return imports;
}

/** Strongly connected components of more than one node (Tarjan). */
function cycles(nodes: readonly string[], next: (node: string) => readonly string[]): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of next(node)) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return found;
}

const imports = fileImports(compilerSetup());
/** unit → unit → the file imports that make the edge. */
const unitEdges = new Map<string, Map<string, string[]>>();
for (const [file, targets] of imports) {
  for (const target of targets) {
    const [from, to] = [unitOf(file), unitOf(target)];
    if (from === to) continue;
    const edges = unitEdges.get(from) ?? new Map<string, string[]>();
    unitEdges.set(from, edges);
    edges.set(to, [...(edges.get(to) ?? []), `${path.relative(root, file)} → ${path.relative(root, target)}`]);
  }
}
const units = [...new Set([...imports.keys()].map(unitOf))].sort();
const found = cycles(units, (unit) => [...(unitEdges.get(unit)?.keys() ?? [])].sort());
if (found.length === 0) {
  console.log(`folder cycles: none among ${units.length} folders and files of src/`);
} else {
  for (const component of found) {
    console.error(`folder cycle: ${component.join(', ')}`);
    for (const from of component) {
      for (const [to, why] of unitEdges.get(from) ?? []) {
        if (component.includes(to)) console.error(`  ${from} → ${to}:\n${why.map((line) => `    ${line}`).join('\n')}`);
      }
    }
  }
  process.exitCode = 1;
}
