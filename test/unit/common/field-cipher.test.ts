import { randomBytes } from 'node:crypto';
import { FieldCipher, parseKeyRing, SealedValueError } from '../../../services/platform/crypto/field-cipher';

/** Key rotation and binding of the AES-256-GCM field cipher that protects tax ids. */
describe('FieldCipher', () => {
  const k2025 = randomBytes(32);
  const k2026 = randomBytes(32);

  it('seals with the active key and opens with whichever key a value names, so keys rotate without downtime', () => {
    const before = new FieldCipher(new Map([['k2025', k2025]]), 'k2025');
    const old = before.seal('123456789', 'record-1');
    expect(old.keyId).toBe('k2025');

    const rotated = new FieldCipher(
      new Map([
        ['k2025', k2025],
        ['k2026', k2026],
      ]),
      'k2026',
    );
    expect(rotated.open(old, 'record-1')).toBe('123456789');
    const fresh = rotated.seal('987654321', 'record-2');
    expect(fresh.keyId).toBe('k2026');
    expect(rotated.open(fresh, 'record-2')).toBe('987654321');

    const retired = new FieldCipher(new Map([['k2026', k2026]]), 'k2026');
    expect(() => retired.open(old, 'record-1')).toThrow(SealedValueError);
  });

  it('refuses a value bound to another record, or with a changed byte', () => {
    const cipher = new FieldCipher(new Map([['k', k2026]]), 'k');
    const sealed = cipher.seal('123456789', 'record-1');
    expect(() => cipher.open(sealed, 'record-2')).toThrow(SealedValueError);
    const flipped = Buffer.from(sealed.ciphertext);
    flipped[0]! ^= 1;
    expect(() => cipher.open({ ...sealed, ciphertext: flipped }, 'record-1')).toThrow(SealedValueError);
  });

  it('parses a key ring of id:base64 entries and names what is wrong with a bad one', () => {
    const ring = parseKeyRing(`a:${k2025.toString('base64')}, b:${k2026.toString('base64')}`);
    expect('keys' in ring && [...ring.keys.keys()]).toEqual(['a', 'b']);
    expect(parseKeyRing('a:c2hvcnQ=')).toEqual({ problem: expect.stringContaining('32 bytes') });
    expect(parseKeyRing(`a:${k2025.toString('base64')},a:${k2026.toString('base64')}`)).toEqual({ problem: 'key id a appears twice' });
    expect(parseKeyRing('')).toEqual({ problem: 'must hold at least one key' });
  });
});
