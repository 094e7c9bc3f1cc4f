/**
 * Lets a child process run the TypeScript sources directly (`node -r <this file> services/x/main.ts`),
 * with no build step: each .ts file is compiled on require by @swc/core, with the options the
 * Jest transform uses, so the child runs exactly the code the tests import.
 */
'use strict';
const fs = require('node:fs');
const { transformSync } = require('@swc/core');

require.extensions['.ts'] = function compileTypeScript(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const { code } = transformSync(source, {
    filename,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};
