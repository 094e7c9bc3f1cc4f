import fs from 'node:fs';
import path from 'node:path';
import { importCycles, importGraph, sourceFiles } from './import-graph';

/**
 * No import cycle anywhere in the tree: a file never reaches itself through its
 * relative imports, type-only imports included (./import-graph.ts says why). eslint-plugin-import-x's
 * `no-cycle` would resolve every import of every file through the type checker on each lint run;
 * the scanner's lexical pass over the tree does the same job for relative imports in a second or two.
 */
const ROOT = path.resolve(__dirname, '../../..');

const cyclesOf = (files: Record<string, string>) => importCycles(importGraph(new Map(Object.entries(files))));

describe('import cycles', () => {
  it('the tree has none', () => {
    const files = new Map(sourceFiles(ROOT).map((file) => [file, fs.readFileSync(path.join(ROOT, file), 'utf8')]));
    // The walk saw the tree (and not only part of it).
    expect(files.has('services/agency/repositories/affiliate.repository.ts')).toBe(true);
    expect(files.has('web/src/api/client.ts')).toBe(true);
    expect([...files.keys()].some((file) => file.startsWith('gen/') || file.includes('node_modules/'))).toBe(false);
    const cycles = importCycles(importGraph(files)).map((cycle) => cycle.join(' -> '));
    expect(cycles).toEqual([]);
  });

  describe('the check', () => {
    it('names a cycle of value, type-only and re-export imports, by its files in import order', () => {
      expect(
        cyclesOf({
          'a/list.ts': `import { b } from './statements';\nexport const a = b;`,
          'a/statements.ts': `import type { Filters } from '../repository';\nexport const b = 1;`,
          'repository.ts': `export { a } from './a/list';\nexport interface Filters { q: string }`,
          'leaf.ts': `import { a } from './a/list';`,
        }),
      ).toEqual([['a/list.ts', 'a/statements.ts', 'repository.ts', 'a/list.ts']]);
    });

    it('resolves folders to their index, `.js` specifiers to their .ts file, and sees import() and require', () => {
      expect(
        cyclesOf({
          'list/index.ts': `export const load = () => import('../page.js');`,
          'page.ts': `const list = require('./list');\nexport type T = typeof import('./other');`,
          'other.ts': `export const x = 1;`,
        }),
      ).toEqual([['list/index.ts', 'page.ts', 'list/index.ts']]);
    });

    it('names a file that imports itself, each separate cycle once, and lets a diamond and packages through', () => {
      expect(
        cyclesOf({
          'self.ts': `import './self';`,
          'x.ts': `import { y } from './y';`,
          'y.ts': `import { x } from './x';`,
          'top.ts': `import './left';\nimport './right';\nimport 'kysely';\nimport '../../gen/referral/common/v1/common';`,
          'left.ts': `import './bottom';`,
          'right.ts': `import './bottom';`,
          'bottom.ts': `export {};`,
        }),
      ).toEqual([
        ['self.ts', 'self.ts'],
        ['x.ts', 'y.ts', 'x.ts'],
      ]);
    });
  });
});
