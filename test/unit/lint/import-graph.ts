import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The tree's relative imports as a graph, and its cycles. Every specifier a file names counts:
 * `import`, `import type`, `export … from`, `import()` (also in a type, `typeof import(…)`) and
 * `require`. Type-only imports count too: they cost nothing at run time, but a cycle of types is the
 * same tangle for a reader (two modules that each need the other to be understood) and becomes a
 * run-time cycle as soon as one of them imports a value instead.
 */

/** Folders that are generated, installed or built: not the tree's own source. */
const SKIPPED_FOLDERS = new Set(['node_modules', 'gen', 'dist', 'artifacts', 'coverage', 'test-artifacts', 'generated', '.git']);
const SOURCE_FILE = /\.tsx?$/;
/** How a relative specifier names a file: as written (with .js meaning .ts), or without its extension, or its folder's index. */
const CANDIDATES = (target: string): string[] => [
  target,
  target.replace(/\.js$/, '.ts'),
  target.replace(/\.js$/, '.tsx'),
  `${target}.ts`,
  `${target}.tsx`,
  path.join(target, 'index.ts'),
  path.join(target, 'index.tsx'),
];

/** Every .ts/.tsx file under `root` (repository-relative, forward slashes), generated and installed folders left out. */
export function sourceFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(path.join(root, folder), { withFileTypes: true })) {
      const relative = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory() && !SKIPPED_FOLDERS.has(entry.name)) walk(relative);
      else if (entry.isFile() && SOURCE_FILE.test(entry.name)) files.push(relative);
    }
  };
  walk('');
  return files.sort();
}

/** The relative specifiers a source text names (the scanner's lexical pass: fast, no type check). */
export function relativeSpecifiers(text: string): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles.map((file) => file.fileName).filter((name) => name.startsWith('./') || name.startsWith('../'));
}

/** file -> the files of `files` it imports. A specifier that resolves to no file of the set (gen/, a package) is left out. */
export function importGraph(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, text] of files) {
    const targets = new Set<string>();
    for (const specifier of relativeSpecifiers(text)) {
      const target = path.posix.join(path.posix.dirname(file), specifier);
      const resolved = CANDIDATES(target).find((candidate) => files.has(candidate));
      if (resolved !== undefined) targets.add(resolved);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/**
 * Each cycle of the graph, once per strongly connected component (Tarjan's algorithm, iterative: the
 * tree is deep enough to matter for recursion), as one closed path through it, e.g. [a, b, c, a].
 */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;

  for (const start of [...graph.keys()].sort()) {
    if (index.has(start)) continue;
    const frames: Array<{ node: string; next: number }> = [];
    const open = (node: string) => {
      index.set(node, counter);
      low.set(node, counter);
      counter += 1;
      stack.push(node);
      onStack.add(node);
      frames.push({ node, next: 0 });
    };
    open(start);
    while (frames.length > 0) {
      const frame = frames.at(-1)!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.next < edges.length) {
        const target = edges[frame.next]!;
        frame.next += 1;
        if (!index.has(target)) open(target);
        else if (onStack.has(target)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        continue;
      }
      frames.pop();
      const parent = frames.at(-1);
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfImport = (graph.get(frame.node) ?? []).includes(frame.node);
        if (component.length > 1 || selfImport) components.push(component.sort());
      }
    }
  }
  return components.map((component) => cyclePath(graph, new Set(component)));
}

/** A closed path through a strongly connected component, from its first file (breadth-first: the shortest way back). */
function cyclePath(graph: ReadonlyMap<string, readonly string[]>, component: ReadonlySet<string>): string[] {
  const start = [...component][0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const target of graph.get(node) ?? []) {
      if (!component.has(target)) continue;
      if (target === start) {
        // Back from the last file to the start, then read forwards and close the loop.
        const back = [node];
        while (back.at(-1) !== start) back.push(cameFrom.get(back.at(-1)!)!);
        return [...back.reverse(), start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start, start];
}
