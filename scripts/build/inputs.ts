import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * What each generated part of the build is made from, and a stamp beside its output saying which
 * contents it was last made from: `npm run build` (scripts/build/main.ts) skips a part whose inputs
 * did not change, and the browser tests (test/e2e/web-build.ts) reuse the same web bundle stamp.
 * By content, not by modification time: a checkout or a copy changes the times, not the contents,
 * and any changed, added, removed or renamed file changes the hash.
 */
export interface BuildPart {
  /** The files it is made from, relative to the root. */
  inputs(root: string): string[];
  /** Where the hash of the inputs it was last made from is kept (inside its output, which a clean removes with it). */
  stamp: string;
}

function filesUnder(root: string, dir: string): string[] {
  const full = path.join(root, dir);
  if (!existsSync(full)) return [];
  return readdirSync(full).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(path.join(root, file)).isDirectory() ? filesUnder(root, file) : [file];
  });
}

/** gen/, from proto/ by buf and ts-proto (whose version changes what it writes). */
export const GENERATED_CODE: BuildPart = {
  inputs: (root) => [...filesUnder(root, 'proto'), 'buf.yaml', 'buf.gen.yaml', 'node_modules/ts-proto/package.json'],
  stamp: 'gen/.inputs-hash',
};

/**
 * dist/, compiled by tsc from the folders tsconfig.build.json includes (gen/ among them), with the
 * settings of both tsconfig files and the installed packages' types. (Extra files in those folders
 * only cost a compile that changes nothing.)
 */
export const COMPILED_CODE: BuildPart = {
  inputs: (root) => {
    const { include } = JSON.parse(readFileSync(path.join(root, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
    return [...include.flatMap((folder) => filesUnder(root, folder)), 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];
  },
  stamp: 'dist/.inputs-hash',
};

/**
 * web/dist, the bundle of the web apps: their sources and the contracts' generated module the portal
 * imports. Vite only strips types, so the generated API types (web/generated/) do not change it; the
 * installed packages (package-lock.json) do.
 */
export const WEB_BUNDLE: BuildPart = {
  inputs: (root) => [
    ...filesUnder(root, 'web/src'),
    ...filesUnder(root, 'web/public'),
    ...filesUnder(root, 'contracts/generated'),
    'web/index.html',
    'web/demo/index.html',
    'web/vite.config.ts',
    'web/precompress.ts',
    'package-lock.json',
  ],
  stamp: 'web/dist/.inputs-hash',
};

/** The hash of a part's inputs as they are now (a missing input counts as such). */
export function inputsHash(root: string, part: BuildPart): string {
  const hash = createHash('sha256');
  for (const file of part
    .inputs(root)
    .map((name) => name.split(path.sep).join('/'))
    .sort()) {
    const full = path.join(root, file);
    hash
      .update(file)
      .update('\0')
      .update(existsSync(full) ? readFileSync(full) : 'missing')
      .update('\0');
  }
  return hash.digest('hex');
}

/** Whether the part's output was made from inputs of this hash. */
export function builtFrom(root: string, part: BuildPart, hash: string): boolean {
  const stamp = path.join(root, part.stamp);
  return existsSync(stamp) && readFileSync(stamp, 'utf8') === hash;
}

/** Once the part was made, successfully, from inputs of this hash. */
export function markBuilt(root: string, part: BuildPart, hash: string): void {
  mkdirSync(path.dirname(path.join(root, part.stamp)), { recursive: true });
  writeFileSync(path.join(root, part.stamp), hash);
}
