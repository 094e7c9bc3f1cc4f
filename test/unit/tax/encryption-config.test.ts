import { gatewayConfigSchema } from '../../../gateway/config';
import { loadConfig } from '../../../services/platform/config';
import { DEVELOPMENT_KEY_ID } from '../../../services/platform/crypto/field-cipher';
import { taxConfigSchema } from '../../../services/tax/config';

const key = (fill: number) => Buffer.alloc(32, fill).toString('base64');

/** The secrets that protect tax data: development stand-ins outside production, required in it. */
describe('encryption and session secrets in configuration', () => {
  it('uses the labelled development key when no tax keys are set outside production', () => {
    const config = loadConfig(taxConfigSchema, {});
    expect(config.encryption).toMatchObject({ activeKeyId: DEVELOPMENT_KEY_ID, development: true });
  });

  it('reads a key ring and its active key, empty values counting as unset', () => {
    const config = loadConfig(taxConfigSchema, { TAX_ENCRYPTION_KEYS: `k2025:${key(1)},k2026a:${key(2)}`, TAX_ENCRYPTION_ACTIVE_KEY_ID: 'k2026a' });
    expect(config.encryption.development).toBe(false);
    expect(config.encryption.activeKeyId).toBe('k2026a');
    expect([...config.encryption.keys.keys()]).toEqual(['k2025', 'k2026a']);
    expect(loadConfig(taxConfigSchema, { TAX_ENCRYPTION_KEYS: '', TAX_ENCRYPTION_ACTIVE_KEY_ID: '' }).encryption.development).toBe(true);
  });

  it('refuses to start in production without tax keys or a session secret, naming each variable', () => {
    expect(() => loadConfig(taxConfigSchema, { NODE_ENV: 'production' })).toThrow(
      /TAX_ENCRYPTION_KEYS: TAX_ENCRYPTION_KEYS must be set when NODE_ENV=production\n {2}TAX_ENCRYPTION_ACTIVE_KEY_ID/,
    );
    expect(() => loadConfig(gatewayConfigSchema, { NODE_ENV: 'production' })).toThrow(
      /SESSION_SECRET: SESSION_SECRET must be set when NODE_ENV=production/,
    );
    const production = loadConfig(gatewayConfigSchema, { NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(32) });
    expect(production.sessionSecretIsDevelopment).toBe(false);
  });

  it('names what is wrong with a bad key ring, a missing half, or an active key that is not in the ring', () => {
    expect(() => loadConfig(taxConfigSchema, { TAX_ENCRYPTION_KEYS: 'k1:c2hvcnQ=', TAX_ENCRYPTION_ACTIVE_KEY_ID: 'k1' })).toThrow(
      /TAX_ENCRYPTION_KEYS: key k1 must be 32 bytes/,
    );
    expect(() => loadConfig(taxConfigSchema, { TAX_ENCRYPTION_KEYS: `k1:${key(1)}` })).toThrow(/TAX_ENCRYPTION_ACTIVE_KEY_ID: must be set together/);
    expect(() => loadConfig(taxConfigSchema, { TAX_ENCRYPTION_KEYS: `k1:${key(1)}`, TAX_ENCRYPTION_ACTIVE_KEY_ID: 'k2' })).toThrow(
      /TAX_ENCRYPTION_ACTIVE_KEY_ID: names no key listed/,
    );
    expect(() => loadConfig(gatewayConfigSchema, { SESSION_SECRET: 'short' })).toThrow(
      /SESSION_SECRET: SESSION_SECRET must be at least 32 characters/,
    );
  });
});
