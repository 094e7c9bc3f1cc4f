import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtFrom, COMPILED_CODE, GENERATED_CODE, inputsHash, markBuilt, WEB_BUNDLE } from '../../scripts/build/inputs';

/**
 * `npm run build` skips gen/ and web/dist when they were made from the same inputs: any change to an
 * input (its contents, a file added, removed or renamed) must make them again, and nothing else may.
 */
function tree(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'build-inputs-'));
  const files: Record<string, string> = {
    'proto/referral/tax/v1/tax.proto': 'syntax = "proto3";',
    'proto/google/rpc/error_details.proto': 'syntax = "proto3";',
    'buf.yaml': 'version: v2',
    'buf.gen.yaml': 'version: v2',
    'node_modules/ts-proto/package.json': '{"version":"2.18.0"}',
    'web/src/main.tsx': 'export {};',
    'web/src/admin/App.tsx': 'export {};',
    'contracts/generated/claim-manager.ts': 'export const claimManagerAbi = [];',
    'web/index.html': '<!doctype html>',
    'web/vite.config.ts': 'export default {};',
    'package-lock.json': '{}',
    'web/generated/api.d.ts': 'export {};',
    'gateway/server.ts': 'export {};',
    'services/tax/main.ts': 'export {};',
    'tsconfig.json': '{}',
    'tsconfig.build.json': JSON.stringify({ include: ['gen', 'gateway', 'services'] }),
    'test/stack/start-loop.test.ts': 'export {};',
  };
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  mkdirSync(path.join(root, 'gen'));
  return root;
}

describe('what the build parts are made from', () => {
  it('are current once made, until an input changes', () => {
    const root = tree();
    for (const part of [GENERATED_CODE, COMPILED_CODE, WEB_BUNDLE]) {
      const hash = inputsHash(root, part);
      expect(builtFrom(root, part, hash)).toBe(false);
      markBuilt(root, part, hash);
      expect(builtFrom(root, part, inputsHash(root, part))).toBe(true);
    }
  });

  it.each([
    ['a changed proto file', 'proto/referral/tax/v1/tax.proto', GENERATED_CODE],
    ['another ts-proto', 'node_modules/ts-proto/package.json', GENERATED_CODE],
    ['the generator settings', 'buf.gen.yaml', GENERATED_CODE],
    ['a changed source of the compiled folders', 'services/tax/main.ts', COMPILED_CODE],
    ['generated code', 'gen/.inputs-hash', COMPILED_CODE],
    ['the compiler settings', 'tsconfig.json', COMPILED_CODE],
    ['other installed types', 'package-lock.json', COMPILED_CODE],
    ['a changed web source', 'web/src/admin/App.tsx', WEB_BUNDLE],
    ['the Vite config', 'web/vite.config.ts', WEB_BUNDLE],
    ["the contracts' generated module", 'contracts/generated/claim-manager.ts', WEB_BUNDLE],
    ['other installed packages', 'package-lock.json', WEB_BUNDLE],
  ])('%s: the part is made again', (_what, file, part) => {
    const root = tree();
    const before = inputsHash(root, part);
    writeFileSync(path.join(root, file), 'changed');
    expect(inputsHash(root, part)).not.toBe(before);
  });

  it('a file added, removed or renamed makes the part again', () => {
    const root = tree();
    const seen = new Set([inputsHash(root, GENERATED_CODE)]);
    writeFileSync(path.join(root, 'proto/referral/tax/v1/extra.proto'), 'syntax = "proto3";');
    seen.add(inputsHash(root, GENERATED_CODE));
    renameSync(path.join(root, 'proto/referral/tax/v1/extra.proto'), path.join(root, 'proto/referral/tax/v1/renamed.proto'));
    seen.add(inputsHash(root, GENERATED_CODE));
    rmSync(path.join(root, 'proto/referral/tax/v1/renamed.proto'));
    rmSync(path.join(root, 'proto/google/rpc/error_details.proto'));
    seen.add(inputsHash(root, GENERATED_CODE));
    expect(seen.size).toBe(4);
  });

  it('what a part is not made from does not make it again', () => {
    const root = tree();
    const web = inputsHash(root, WEB_BUNDLE);
    const gen = inputsHash(root, GENERATED_CODE);
    const dist = inputsHash(root, COMPILED_CODE);
    // The API types are types only (Vite strips them); the gateway is compiled by tsc, not bundled.
    writeFileSync(path.join(root, 'web/generated/api.d.ts'), 'export type X = 1;');
    writeFileSync(path.join(root, 'web/src/main.tsx'), 'export {};'); // rewritten, same contents
    // Tests are not built.
    writeFileSync(path.join(root, 'test/stack/start-loop.test.ts'), 'export const x = 1;');
    expect(inputsHash(root, WEB_BUNDLE)).toBe(web);
    expect(inputsHash(root, GENERATED_CODE)).toBe(gen);
    expect(inputsHash(root, COMPILED_CODE)).toBe(dist);
    writeFileSync(path.join(root, 'gateway/server.ts'), 'export const x = 1;');
    expect(inputsHash(root, WEB_BUNDLE)).toBe(web);
    expect(inputsHash(root, GENERATED_CODE)).toBe(gen);
  });
});
