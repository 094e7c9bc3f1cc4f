/**
 * `node -r ./scripts/register-ts.js file.ts`: runs the TypeScript sources in a child process,
 * compiled on load by swc with the options Jest uses, so tests (and `npm run web:api-types`) can start real processes of the
 * stack (and kill them) without a build. Processes forked from such a process inherit the flag.
 *
 * What swc makes of a file is kept on disk (REGISTER_TS_CACHE, else a folder in the system's temp
 * directory), keyed by everything the output depends on: the tests start service and CLI processes
 * by the dozen, and each used to compile the same few hundred files again.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const process = require('node:process');

const OPTIONS = {
  jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};
const CACHE_DIR = process.env.REGISTER_TS_CACHE || path.join(os.tmpdir(), 'referral-register-ts');

let swc;
/** swc loads its native binding only when a file is not in the cache. */
function compile(source, filename) {
  swc ??= require('@swc/core');
  return swc.transformSync(source, { filename, ...OPTIONS }).code;
}

let salt;
/** The compiler's version and options: another of either compiles differently. */
function cacheSalt() {
  salt ??= `${require('@swc/core/package.json').version}\0${JSON.stringify(OPTIONS)}\0`;
  return salt;
}

function compileCached(source, filename) {
  // The file name is part of the key: the inline source map names it.
  const key = crypto.createHash('sha256').update(cacheSalt()).update(filename).update('\0').update(source).digest('hex');
  const cached = path.join(CACHE_DIR, `${key}.js`);
  try {
    return fs.readFileSync(cached, 'utf8');
  } catch {
    // Not compiled yet (or the cache cannot be read): compile, and keep it if we can.
  }
  const code = compile(source, filename);
  try {
    fs.mkdirSync(CACHE_DIR, { recursive: true });
    // Written aside and renamed into place: a process reading it meanwhile sees all of it or nothing.
    const partial = `${cached}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
    fs.writeFileSync(partial, code);
    fs.renameSync(partial, cached);
  } catch {
    // A read-only or full disk only costs the next process a compile.
  }
  return code;
}

if (!require.extensions['.ts']) {
  require.extensions['.ts'] = (module, filename) => {
    module._compile(compileCached(fs.readFileSync(filename, 'utf8'), filename), filename);
  };
}
