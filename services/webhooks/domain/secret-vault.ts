import type { FieldCipher, SealedValue } from '../../platform/crypto/field-cipher';

/** Signing secrets at rest: sealed, bound to their webhook so a copied ciphertext opens nowhere else. */
export class SecretVault {
  constructor(private readonly cipher: FieldCipher) {}

  seal(webhookId: string, secret: string): SealedValue {
    return this.cipher.seal(secret, binding(webhookId));
  }

  open(webhookId: string, sealed: SealedValue): string {
    return this.cipher.open(sealed, binding(webhookId));
  }
}

const binding = (webhookId: string) => `webhooks.webhooks.secret:${webhookId}`;
