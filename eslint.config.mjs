// ESLint for the whole tree: `npm run lint`, `npx eslint <files>`. `npm test` lints with this config too, through
// scripts/lint/check.mjs, which hands the type-aware rules the program its type check has just built.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import { importBoundaries } from './scripts/lint/import-boundaries.mjs';

/**
 * The architecture's import boundaries (docs/architecture.md, Boundaries), checked on every import after it is
 * resolved to a repository path. `{service}` stands for any folder of services/ except platform and rules, so a
 * new service (services/agency, services/claim) is covered without touching this file.
 * Tests (test/, *.test.ts), scripts/ and bench/ wire whole stacks together and are not restricted.
 */
const LAYERS = [
  {
    name: 'the gateway',
    files: 'gateway/**',
    mayImport: ['gateway/**', 'gen/**', 'services/platform/**', 'services/rules/**'],
    why: 'the gateway reaches services only through their generated gRPC clients (gen/) and shares only services/platform and services/rules',
  },
  {
    name: 'a service',
    files: 'services/{service}/**',
    except: ['services/platform/**', 'services/rules/**'],
    mayImport: ['services/{service}/**', 'services/platform/**', 'services/rules/**', 'gen/**', 'contracts/generated/**'],
    why: 'a service never imports another service; data crosses services by gRPC (gen/) or events',
  },
  {
    name: 'services/platform',
    files: 'services/platform/**',
    mayImport: ['services/platform/**', 'services/rules/**', 'gen/**'],
    why: 'the platform every service runs on (outbox, relay, queues, gRPC kit, database) knows no particular service',
  },
  {
    name: 'services/rules',
    files: 'services/rules/**',
    mayImport: ['services/rules/**', 'gen/**'],
    why: 'the shared rules (money, identifiers, vocabularies, the typed errors) are plain logic: no platform, no transport, no particular service',
  },
  {
    name: 'the service registry',
    files: 'services/manifests.ts',
    mayImport: ['services/*/manifest', 'services/platform/**', 'services/rules/**'],
    why: 'the registry lists each service by its manifest and nothing else of it',
  },
  {
    // Domain code holds the rules; transports (gRPC handlers, HTTP, queue workers) translate and
    // delegate to it. The domain may use its own service's repositories, types and error classes:
    // they are the persistence port written for it (the medium test tier runs domain + real
    // repositories), while SQL and the driver stay inside them, hence no kysely or pg here.
    // From gen/ it may take the vocabularies (enums) and shared messages, which are plain data; the
    // services' generated files carry the gRPC service definitions, and mapping to and from them is
    // the grpc/ folder's job. It may take every shared rule, and from services/platform everything that is
    // not transport or process wiring. From contracts/generated, the contracts' ABI and struct: plain data, like the vocabularies.
    name: 'domain code',
    files: 'services/{service}/domain/**',
    mayImport: [
      'services/{service}/domain/**',
      'services/{service}/repositories/**',
      'services/rules/**',
      'services/platform/**',
      'gen/referral/common/**',
      'gen/referral/*/v*/enums',
      'contracts/generated/**',
    ],
    mayNotImport: [
      'services/platform/grpc/**',
      'services/platform/queue',
      'services/platform/job-relay',
      'services/platform/service-runtime',
      'services/platform/service-manifest',
      'services/platform/lifecycle',
      'services/platform/db/database',
      'services/platform/db/migrate',
    ],
    packagesNot: ['express', '@grpc/grpc-js', 'grpc-health-check', 'bullmq', 'ioredis', 'kysely', 'pg'],
    why: 'domain code imports neither HTTP, gRPC, queues nor the database driver; transports translate and delegate to it',
  },
  {
    name: 'the web applications',
    files: 'web/**',
    // The shared rules the web states as the API does, each a plain file that imports nothing of the platform: the countries
    // the API accepts, the affiliate export's columns and the CSV writer (the CLI's export writes the same file).
    mayImport: ['web/**', 'contracts/generated/**', 'services/rules/countries', 'services/rules/affiliate-csv', 'services/rules/csv-line'],
    why: "the browser reaches the platform only through the HTTP API (its types are generated from /openapi.json, web/generated) and the chain through the contracts' generated ABI (contracts/generated); of the shared rules it takes only the plain ones web/tsconfig.json includes",
  },
  {
    name: 'the client',
    files: 'client/**',
    except: ['**/*.test.ts'],
    mayImport: ['client/**', 'gen/**', 'services/rules/**'],
    why: 'the published client speaks HTTP to the gateway and shares only contract code',
  },
  {
    name: 'the command-line tool',
    files: 'cli/**',
    mayImport: ['cli/**', 'client', 'client/**', 'gen/**', 'services/rules/**'],
    why: 'the CLI uses the public HTTP API only, like any script would; it shares the client and contract code',
  },
];

export default defineConfig(
  { ignores: ['gen/**', 'dist/**', 'artifacts/**', 'coverage/**', 'node_modules/**', 'web/dist/**', 'web/generated/**', 'test-artifacts/**'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    plugins: { boundaries: importBoundaries },
    rules: { 'boundaries/layers': ['error', { root: import.meta.dirname, layers: LAYERS }] },
  },
  {
    // Type-aware, but only the rules that catch real bugs: an unawaited promise, a promise where a
    // callback's return is ignored, a `return` inside try that skips its catch, and casts that hide
    // nothing (they hide the next real gap). The whole recommendedTypeChecked set flags every read
    // of an untyped JSON body in the tests.
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      eqeqeq: 'error',
      // A leading underscore marks a value left out on purpose (an omitted field, Express's 4-argument error handler).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Production code logs through services/platform/logger (structured, secrets redacted).
    files: ['services/**', 'gateway/**', 'client/**', 'web/**'],
    rules: { 'no-console': 'error' },
  },
  {
    // Tests and benchmarks read untyped JSON bodies.
    files: ['test/**', 'bench/**', '**/*.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
