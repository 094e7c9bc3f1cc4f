import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * The import boundaries in eslint.config.mjs refuse what docs/architecture.md forbids and let through what the
 * architecture needs. Each case is linted as source text placed at a path in the tree, with the
 * repository's own config (type-aware rules off: the files do not exist on disk).
 */
const ROOT = path.resolve(__dirname, '../../..');

interface Case {
  file: string;
  code: string;
}

/** ESLint loads its config with a dynamic import, which Jest's module system refuses: lint in a plain Node process. */
const LINT_SCRIPT = `
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import path from 'node:path';
const cases = JSON.parse(process.argv[1]);
const eslint = new ESLint({ cwd: process.cwd(), overrideConfig: tseslint.configs.disableTypeChecked });
const out = [];
for (const { file, code } of cases) {
  const [result] = await eslint.lintText(code, { filePath: path.join(process.cwd(), file) });
  out.push(result.messages.filter((m) => m.ruleId === 'boundaries/layers' || m.fatal).map((m) => m.message));
}
process.stdout.write(JSON.stringify(out));
`;

function boundaryErrors(cases: Case[]): string[][] {
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', LINT_SCRIPT, JSON.stringify(cases)], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(output) as string[][];
}

const importOf = (specifier: string) => `import * as imported from '${specifier}';\nexport { imported };\n`;

/** [what, file, code, the start of the one error expected] */
const REFUSED: Array<[string, string, string, string]> = [
  [
    'gateway imports a service',
    'gateway/routes/audience/fixture.ts',
    importOf('../../../services/audience/domain/vocabulary'),
    'the gateway may not import services/audience/domain/vocabulary',
  ],
  ['gateway imports the service registry', 'gateway/fixture.ts', importOf('../services/manifests'), 'the gateway may not import services/manifests'],
  [
    'gateway path spelled the long way',
    'gateway/http/fixture.ts',
    importOf('../../gateway/../services/tax/repositories/tax-record.repository'),
    'the gateway may not import services/tax/repositories/tax-record.repository',
  ],
  [
    'gateway re-exports a service',
    'gateway/fixture.ts',
    `export { SERVICE_MANIFESTS } from '../services/manifests';\n`,
    'the gateway may not import services/manifests',
  ],
  [
    'gateway imports a service dynamically',
    'gateway/fixture.ts',
    `export const load = () => import('../services/tax/server');\n`,
    'the gateway may not import services/tax/server',
  ],
  [
    'gateway requires a service',
    'gateway/fixture.ts',
    `export const tax = require('../services/tax/config');\n`,
    'the gateway may not import services/tax/config',
  ],
  [
    'gateway names a service type',
    'gateway/fixture.ts',
    `export type T = typeof import('../services/audience/composition');\n`,
    'the gateway may not import services/audience/composition',
  ],
  [
    'service imports another',
    'services/tax/grpc/fixture.ts',
    importOf('../../audience/domain/vocabulary'),
    'a service may not import services/audience/domain/vocabulary',
  ],
  [
    'a service the config never names imports another',
    'services/agency/domain/fixture.ts',
    importOf('../../claim/domain/voucher'),
    'a service may not import services/claim/domain/voucher',
  ],
  [
    'service imports the gateway',
    'services/audience/fixture.ts',
    importOf('../../gateway/http/errors'),
    'a service may not import gateway/http/errors',
  ],
  [
    'the platform imports a service',
    'services/platform/fixture.ts',
    importOf('../audience/manifest'),
    'services/platform may not import services/audience/manifest',
  ],
  [
    'a shared rule imports the platform',
    'services/rules/fixture.ts',
    importOf('../platform/logger'),
    'services/rules may not import services/platform/logger',
  ],
  ['domain imports express', 'services/audience/domain/fixture.ts', importOf('express'), 'domain code may not import the package express'],
  [
    'domain imports grpc-js',
    'services/tax/domain/fixture.ts',
    `import type { Metadata } from '@grpc/grpc-js';\nexport type M = Metadata;\n`,
    'domain code may not import the package @grpc/grpc-js',
  ],
  ['domain imports bullmq', 'services/agency/domain/fixture.ts', importOf('bullmq'), 'domain code may not import the package bullmq'],
  ['domain imports ioredis', 'services/audience/domain/fixture.ts', importOf('ioredis'), 'domain code may not import the package ioredis'],
  ['domain imports kysely', 'services/audience/domain/fixture.ts', importOf('kysely'), 'domain code may not import the package kysely'],
  [
    'domain imports its gRPC handlers',
    'services/audience/domain/fixture.ts',
    importOf('../grpc/audience.grpc'),
    'domain code may not import services/audience/grpc/audience.grpc',
  ],
  [
    'domain imports its composition root',
    'services/audience/domain/fixture.ts',
    importOf('../composition'),
    'domain code may not import services/audience/composition',
  ],
  [
    'domain imports its jobs',
    'services/tax/domain/fixture.ts',
    importOf('../jobs/expire-w8-forms.job'),
    'domain code may not import services/tax/jobs/expire-w8-forms.job',
  ],
  [
    'domain imports the shared gRPC kit',
    'services/tax/domain/fixture.ts',
    importOf('../../platform/grpc/errors'),
    'domain code may not import services/platform/grpc/errors',
  ],
  [
    'domain imports the shared queue',
    'services/audience/domain/fixture.ts',
    importOf('../../platform/queue'),
    'domain code may not import services/platform/queue',
  ],
  [
    'domain imports a generated service definition',
    'services/audience/domain/fixture.ts',
    importOf('../../../gen/referral/audience/v1/audience'),
    'domain code may not import gen/referral/audience/v1/audience',
  ],
  [
    'client imports a service',
    'client/fixture.ts',
    importOf('../services/audience/domain/vocabulary'),
    'the client may not import services/audience/domain/vocabulary',
  ],
  ['client imports the gateway', 'client/fixture.ts', importOf('../gateway/http/errors'), 'the client may not import gateway/http/errors'],
  [
    'CLI imports the gateway',
    'cli/commands/fixture.ts',
    importOf('../../gateway/routes/agency/agency.schemas'),
    'the command-line tool may not import gateway/routes/agency/agency.schemas',
  ],
  [
    'CLI imports a service',
    'cli/fixture.ts',
    importOf('../services/claim/domain/voucher'),
    'the command-line tool may not import services/claim/domain/voucher',
  ],
  [
    'the web imports a service',
    'web/src/portal/fixture.ts',
    importOf('../../../services/claim/domain/voucher'),
    'the web applications may not import services/claim/domain/voucher',
  ],
  [
    'the web imports the contract compiler',
    'web/src/portal/fixture.ts',
    importOf('../../../scripts/compile-contracts'),
    'the web applications may not import scripts/compile-contracts',
  ],
];

const ALLOWED: Array<[string, string, string]> = [
  [
    'gateway imports the shared rules and generated clients',
    'gateway/fixture.ts',
    importOf('../services/rules/errors') + `export * from '../gen/referral/audience/v1/audience';\n`,
  ],
  [
    'service imports itself, the platform and another service’s generated client',
    'services/tax/grpc/fixture.ts',
    `export * from '../domain/tax-status';\nexport * from '../../platform/grpc/client';\nexport * from '../../../gen/referral/audience/v1/audience';\n`,
  ],
  [
    'a new service’s domain imports its repositories, common rules and its vocabulary',
    'services/agency/domain/fixture.ts',
    `export * from '../repositories/affiliate.repository';\nexport * from '../../rules/errors';\nexport * from '../../../gen/referral/agency/v1/enums';\nexport * from '../../../gen/referral/common/v1/common';\n`,
  ],
  ['the platform imports a shared rule', 'services/platform/fixture.ts', importOf('../rules/money')],
  ['the registry imports a manifest', 'services/manifests.ts', importOf('./claim/manifest')],
  [
    'tests import anything',
    'test/audience/fixture.test.ts',
    `export * from '../../services/audience/domain/vocabulary';\nexport * from '../../gateway/app';\n`,
  ],
  ['a client test imports test helpers', 'client/fixture.test.ts', importOf('../test/helpers/stack')],
  ['scripts import the registry', 'scripts/fixture.ts', importOf('../services/manifests')],
  [
    'the claim domain imports the contracts’ generated module',
    'services/claim/domain/fixture.ts',
    importOf('../../../contracts/generated/claim-manager'),
  ],
  ['the portal imports the contracts’ generated module', 'web/src/portal/fixture.ts', importOf('../../../contracts/generated/claim-manager')],
  [
    'the CLI imports the client, common rules and vocabularies',
    'cli/fixture.ts',
    importOf('../client') + `export * from '../services/rules/identifiers';\nexport * from '../gen/referral/agency/v1/enums';\n`,
  ],
];

describe('import boundaries (eslint.config.mjs)', () => {
  let refused: string[][];
  let allowed: string[][];

  beforeAll(() => {
    const results = boundaryErrors([...REFUSED, ...ALLOWED].map(([, file, code]) => ({ file, code })));
    refused = results.slice(0, REFUSED.length);
    allowed = results.slice(REFUSED.length);
  }, 60_000);

  test.each(REFUSED.map(([what, file, , expected], i) => ({ what, file, expected, i })))('refuses: $what ($file)', ({ expected, i }) => {
    expect(refused[i]).toHaveLength(1);
    expect(refused[i]![0]).toMatch(new RegExp(`^${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
  });

  test.each(ALLOWED.map(([what, file], i) => ({ what, file, i })))('allows: $what ($file)', ({ i }) => {
    expect(allowed[i]).toEqual([]);
  });
});
