import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadEnvFile } from '../../../scripts/stack/env-file';

describe('the .env file npm start reads', () => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'env-file-')), '.env');

  it('adds what the environment lacks, and keeps what it already has', () => {
    writeFileSync(
      file,
      ['# a comment', 'PORT=9000', 'LOG_LEVEL=debug', 'PLATFORM_API_KEY=', 'SIWE_URI="http://localhost:9000" # quoted', ''].join('\n'),
    );
    const env: NodeJS.ProcessEnv = { PORT: '8081' };
    expect(loadEnvFile(file, env)).toEqual({ applied: ['LOG_LEVEL', 'PLATFORM_API_KEY', 'SIWE_URI'], kept: ['PORT'] });
    expect(env).toEqual({ PORT: '8081', LOG_LEVEL: 'debug', PLATFORM_API_KEY: '', SIWE_URI: 'http://localhost:9000' });
  });

  it('is optional', () => {
    const env: NodeJS.ProcessEnv = {};
    expect(loadEnvFile(path.join(path.dirname(file), 'missing.env'), env)).toBeUndefined();
    expect(env).toEqual({});
  });
});
