/**
 * `node scripts/lint/check.mjs <tsconfig> [--others <tsconfig> ...]`: type-checks one TypeScript
 * project and lints its files with ESLint, both on one TypeScript program (`npm test` runs it once
 * for tsconfig.json and once for web/tsconfig.json, side by side).
 *
 * Why one program: ESLint's type-aware rules (no-floating-promises and the others in
 * eslint.config.mjs) need the types of every file, and `eslint .` built and checked the whole tree a
 * second time after `tsc` had done it: 80 s of CPU against tsc's 40. Here the rules ask the checker
 * that has just type-checked the project, so they cost what their own walk costs.
 *
 * Re-runs are incremental, and correct across files: the program is built from a .tsbuildinfo and
 * the lint results are kept per file (both in node_modules/.cache/check/, which `npm ci` deletes).
 * A file is linted again when its text changed or when TypeScript counts it affected by a change
 * elsewhere (a file it imports changed its declarations: a function that became async makes its
 * callers' floating promises), the same rule by which `tsc --incremental` re-checks it.
 * ESLint's own `--cache` knows only a file's own text and would keep that caller's old result.
 *
 * `--others <tsconfig> ...` also lints every file ESLint lints that neither this project nor those
 * hold (the .js and .mjs files, and any .ts file no project includes, which fails to parse, as it
 * does under `eslint .`), so that the runs together lint what `eslint .` lints.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import tsParser from '@typescript-eslint/parser';
import { ESLint } from 'eslint';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '../..');
/**
 * One folder per checkout: git worktrees may share one node_modules, and each has its own files.
 * CHECK_CACHE_DIR names another (test/lint/check.test.ts checks a project of its own).
 */
const CACHE_DIR =
  process.env.CHECK_CACHE_DIR || path.join(ROOT, 'node_modules/.cache/check', createHash('sha256').update(ROOT).digest('hex').slice(0, 12));
/** What every lint result depends on besides its file's text and types: a change starts the cache afresh. */
const LINT_INPUTS = [
  'eslint.config.mjs',
  ...fs.readdirSync(path.join(ROOT, 'scripts/lint')).map((name) => `scripts/lint/${name}`),
  'package-lock.json',
];

function usage() {
  process.stderr.write('usage: node scripts/lint/check.mjs <tsconfig> [--others <tsconfig> ...]\n');
  process.exit(2);
}

const [configArgument, ...rest] = process.argv.slice(2);
if (!configArgument || (rest.length > 0 && rest[0] !== '--others')) usage();
const otherConfigs = rest.slice(1);

const formatHost = {
  getCanonicalFileName: (fileName) => fileName,
  getCurrentDirectory: () => ROOT,
  getNewLine: () => '\n',
};

function parseConfig(configPath) {
  const parsed = ts.getParsedCommandLineOfConfigFile(path.resolve(ROOT, configPath), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      process.stderr.write(ts.formatDiagnostics([diagnostic], formatHost));
      process.exit(1);
    },
  });
  return parsed;
}

const cacheName = configArgument.replace(/\.json$/, '').replace(/[/\\]/g, '-');
const parsed = parseConfig(configArgument);
fs.mkdirSync(CACHE_DIR, { recursive: true });

// The type check, as `tsc -p <tsconfig> --noEmit --incremental` would do it.
const program = ts.createIncrementalProgram({
  rootNames: parsed.fileNames,
  options: { ...parsed.options, noEmit: true, incremental: true, tsBuildInfoFile: path.join(CACHE_DIR, `${cacheName}.tsbuildinfo`) },
  configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(parsed),
  projectReferences: parsed.projectReferences,
});
/** Files whose type information may have changed since the last run (every file on the first). */
const affected = new Set();
for (let next; (next = program.getSemanticDiagnosticsOfNextAffectedFile());) {
  if ('fileName' in next.affected) affected.add(path.resolve(next.affected.fileName));
}
const typeErrors = [
  ...program.getConfigFileParsingDiagnostics(),
  ...program.getOptionsDiagnostics(),
  ...program.getGlobalDiagnostics(),
  ...program.getSyntacticDiagnostics(),
  ...program.getSemanticDiagnostics(),
];
// In colour with the lines quoted on a terminal, one line each otherwise, as tsc prints them.
const formatDiagnostics = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
if (typeErrors.length > 0) process.stdout.write(formatDiagnostics(ts.sortAndDeduplicateDiagnostics(typeErrors), formatHost));

// The lint, with the type-aware rules reading the program just checked.
const tsProgram = program.getProgram();
const sharedProgramParser = {
  meta: { name: 'shared-program-parser' },
  parseForESLint: (code, options) => tsParser.parseForESLint(code, { ...options, project: undefined, projectService: false, programs: [tsProgram] }),
};
const eslint = new ESLint({
  cwd: ROOT,
  warnIgnored: false,
  overrideConfig: [{ files: ['**/*.ts', '**/*.tsx', '**/*.mts', '**/*.cts'], languageOptions: { parser: sharedProgramParser } }],
});

const hashOf = (text) => createHash('sha256').update(text).digest('hex');
const cachePath = path.join(CACHE_DIR, `${cacheName}.lint.json`);
const cacheKey = hashOf([ESLint.version, ts.version, ...LINT_INPUTS.map((file) => fs.readFileSync(path.join(ROOT, file), 'utf8'))].join('\0'));
const cached = readCache();

const lintable = [];
for (const fileName of parsed.fileNames.map((name) => path.resolve(name))) if (!(await eslint.isPathIgnored(fileName))) lintable.push(fileName);

const hashes = new Map(lintable.map((fileName) => [fileName, hashOf(fs.readFileSync(fileName))]));
const stale = new Set(lintable.filter((fileName) => affected.has(fileName) || cached.files[relative(fileName)]?.hash !== hashes.get(fileName)));
const fresh = stale.size > 0 ? await eslint.lintFiles([...stale]) : [];

const results = [
  ...fresh,
  ...lintable.filter((fileName) => !stale.has(fileName)).map((fileName) => ({ ...cached.files[relative(fileName)].result, filePath: fileName })),
];
// The lint results first, the type check's record second: if the run stops between the two, the next
// one still counts as affected every file this one found affected.
writeCache(fresh, hashes);
program.emitBuildInfo();

if (otherConfigs.length > 0) {
  const held = [configArgument, ...otherConfigs].flatMap((configPath) => parseConfig(configPath).fileNames.map(relative));
  const others = new ESLint({
    cwd: ROOT,
    overrideConfig: [{ ignores: held }, { files: ['**/*.ts', '**/*.tsx', '**/*.mts', '**/*.cts'], languageOptions: { parser: sharedProgramParser } }],
  });
  results.push(...(await others.lintFiles(['.'])));
}

const formatter = await eslint.loadFormatter('stylish');
const lintReport = await formatter.format(results.filter((result) => result.messages.length > 0));
if (lintReport) process.stdout.write(lintReport);
const lintErrors = results.reduce((sum, result) => sum + result.errorCount + result.fatalErrorCount, 0);
process.stdout.write(
  `${configArgument}: ${typeErrors.length} type error(s); linted ${stale.size} of ${lintable.length} file(s) (the rest unchanged since the last run)` +
    `${otherConfigs.length > 0 ? ' and the files outside the projects' : ''}: ${lintErrors} lint error(s)\n`,
);
process.exitCode = typeErrors.length > 0 || lintErrors > 0 ? 1 : 0;

function relative(fileName) {
  return path.relative(ROOT, fileName).split(path.sep).join('/');
}

function readCache() {
  try {
    const cache = JSON.parse(fs.readFileSync(cachePath, 'utf8'));
    if (cache.key === cacheKey) return cache;
  } catch {
    // No cache yet, or one this version cannot read: lint everything.
  }
  return { key: cacheKey, files: {} };
}

function writeCache(freshResults, fileHashes) {
  const files = {};
  for (const fileName of fileHashes.keys()) {
    const entry = cached.files[relative(fileName)];
    if (entry) files[relative(fileName)] = entry;
  }
  for (const result of freshResults) {
    // A file with a fatal error (it did not parse) is linted again next time.
    if (result.fatalErrorCount > 0) continue;
    const { source: _source, filePath: _filePath, ...kept } = result;
    files[relative(result.filePath)] = { hash: fileHashes.get(result.filePath), result: kept };
  }
  fs.writeFileSync(cachePath, JSON.stringify({ key: cacheKey, files }));
}
