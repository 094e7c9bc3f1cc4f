import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Field-level encryption for values that must never rest in clear (tax identification numbers):
 * AES-256-GCM with a fresh 12-byte IV per value and a 16-byte tag. Each sealed value names the
 * key that sealed it, so keys rotate without downtime: new writes use the active key, reads use
 * whichever key the value names, and retired keys stay in the ring until nothing names them.
 * The associated data binds a value to its row, so a ciphertext copied elsewhere does not open.
 */
export interface SealedValue {
  keyId: string;
  iv: Buffer;
  ciphertext: Buffer;
  authTag: Buffer;
}

const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A value that could not be opened: unknown key, or a ciphertext, tag or binding that does not match. */
export class SealedValueError extends Error {
  override readonly name = 'SealedValueError';
}

export class FieldCipher {
  constructor(
    private readonly keys: ReadonlyMap<string, Buffer>,
    readonly activeKeyId: string,
  ) {
    if (!keys.has(activeKeyId)) throw new Error(`the active key ${activeKeyId} is not in the key ring`);
    for (const [id, key] of keys) {
      if (key.length !== KEY_BYTES) throw new Error(`key ${id} must be ${KEY_BYTES} bytes`);
    }
  }

  hasKey(keyId: string): boolean {
    return this.keys.has(keyId);
  }

  seal(plaintext: string, associatedData: string): SealedValue {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.keys.get(this.activeKeyId)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { keyId: this.activeKeyId, iv, ciphertext, authTag: cipher.getAuthTag() };
  }

  open(value: SealedValue, associatedData: string): string {
    const key = this.keys.get(value.keyId);
    if (!key) throw new SealedValueError(`no key with id ${value.keyId} is configured`);
    if (value.iv.length !== IV_BYTES || value.authTag.length !== TAG_BYTES) {
      throw new SealedValueError('the sealed value is malformed');
    }
    try {
      const decipher = createDecipheriv(ALGORITHM, key, value.iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(associatedData, 'utf8'));
      decipher.setAuthTag(value.authTag);
      return Buffer.concat([decipher.update(value.ciphertext), decipher.final()]).toString('utf8');
    } catch {
      throw new SealedValueError('the sealed value does not authenticate (wrong key, tampered, or bound to another record)');
    }
  }
}

/**
 * Parses a key ring written as `id:base64key,id:base64key` (each key 32 random bytes, e.g.
 * `openssl rand -base64 32`). Returns the problem as a sentence instead of throwing, for config validation.
 */
export function parseKeyRing(spec: string): { keys: Map<string, Buffer> } | { problem: string } {
  const keys = new Map<string, Buffer>();
  for (const entry of spec
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const separator = entry.indexOf(':');
    const id = separator > 0 ? entry.slice(0, separator) : '';
    if (!KEY_ID.test(id)) return { problem: 'each entry must be <key id>:<base64 key>, the id 1-64 letters, digits, _ or -' };
    const material = entry.slice(separator + 1);
    const key = Buffer.from(material, 'base64');
    if (key.length !== KEY_BYTES || key.toString('base64') !== material) {
      return { problem: `key ${id} must be ${KEY_BYTES} bytes in standard base64 (openssl rand -base64 32)` };
    }
    if (keys.has(id)) return { problem: `key id ${id} appears twice` };
    keys.set(id, key);
  }
  if (keys.size === 0) return { problem: 'must hold at least one key' };
  return { keys };
}

/** Key id of the development stand-in; values sealed with it are readable by anyone with the source. */
export const DEVELOPMENT_KEY_ID = 'dev-insecure';

/**
 * A fixed key for local development and tests when no keys are configured. It is public (derived
 * from this label), so production refuses to start without real keys.
 */
export function developmentKeyRing(): Map<string, Buffer> {
  const key = createHash('sha256').update('referral-platform development-only field key: NEVER use in production').digest();
  return new Map([[DEVELOPMENT_KEY_ID, key]]);
}
