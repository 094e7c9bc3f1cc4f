import type { FieldCipher, SealedValue } from '../../platform/crypto/field-cipher';
import { canonicalSpellingOfAnyType, type UserIdentifier } from '../../rules/identifiers';
import { canonicalUuid } from '../../rules/ids';

export interface RecordBinding {
  projectId: string;
  user: UserIdentifier;
  recordId: string;
}

/**
 * Seals tax ids at rest. The associated data names the row a value belongs to, so a ciphertext
 * moved to another record, user or project fails to open instead of showing someone else's TIN.
 */
export class TinVault {
  constructor(private readonly cipher: FieldCipher) {}

  get activeKeyId(): string {
    return this.cipher.activeKeyId;
  }

  sealRecordTin(tin: string, binding: RecordBinding): SealedValue {
    return this.cipher.seal(tin, recordAad(binding));
  }

  openRecordTin(sealed: SealedValue, binding: RecordBinding): string {
    return this.cipher.open(sealed, recordAad(binding));
  }

  /**
   * Opens a value sealed by older code, which bound the ids as the caller had spelled them
   * (migration 0002 repairs such values). Never for the request path.
   */
  openRecordTinSpelledAs(sealed: SealedValue, binding: RecordBinding): string {
    return this.cipher.open(sealed, spelledRecordAad(binding));
  }

  /** Whether the ring holds the key a value names (without it, nothing can be said about the value). */
  hasKey(keyId: string): boolean {
    return this.cipher.hasKey(keyId);
  }

  sealCompanyTaxId(taxId: string, projectId: string): SealedValue {
    return this.cipher.seal(taxId, companyAad(projectId));
  }

  openCompanyTaxId(sealed: SealedValue, projectId: string): string {
    return this.cipher.open(sealed, companyAad(projectId));
  }
}

/**
 * The associated data is always built from canonical values, whatever spelling reaches it: a
 * record stays bound to its project, user and id, not to how a caller once wrote them.
 */
function recordAad({ projectId, user, recordId }: RecordBinding): string {
  return spelledRecordAad({
    projectId: canonicalUuid(projectId),
    user: { identifier: canonicalSpellingOfAnyType(user.identifier), identifierType: user.identifierType },
    recordId: canonicalUuid(recordId),
  });
}

function spelledRecordAad({ projectId, user, recordId }: RecordBinding): string {
  return `tax_records/${projectId}/${user.identifierType}:${user.identifier}/${recordId}/tax_id_number`;
}

function companyAad(projectId: string): string {
  return `tax_settings/${canonicalUuid(projectId)}/company_tax_id`;
}
