import type { SealedValue } from '../../platform/crypto/field-cipher';

/**
 * A sealed value is stored in four columns (key id, IV, ciphertext, tag), all set or all NULL
 * (a CHECK constraint of each table). Read back: the value, or null when there is none.
 */
export function readSealed(
  columns: { keyId: string | null; iv: Buffer | null; ciphertext: Buffer | null; authTag: Buffer | null },
  where: string,
): SealedValue | null {
  const { keyId, iv, ciphertext, authTag } = columns;
  if (keyId === null) return null;
  if (iv === null || ciphertext === null || authTag === null) throw new Error(`${where} holds a partial sealed value`);
  return { keyId, iv, ciphertext, authTag };
}
