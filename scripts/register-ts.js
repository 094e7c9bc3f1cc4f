/**
 * `node -r ./scripts/register-ts.js file.ts`: runs the TypeScript sources in a child process,
 * compiled on load by swc with the options Jest uses, so tests (and `npm run web:api-types`) can start real processes of the
 * stack (and kill them) without a build. Processes forked from such a process inherit the flag.
 */
const fs = require('node:fs');
const { transformSync } = require('@swc/core');

if (!require.extensions['.ts']) {
  require.extensions['.ts'] = (module, filename) => {
    const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
      filename,
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'commonjs' },
      sourceMaps: 'inline',
    });
    module._compile(code, filename);
  };
}
