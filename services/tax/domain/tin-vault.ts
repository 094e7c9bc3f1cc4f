import type { FieldCipher, SealedValue } from '../../common/crypto/field-cipher';
import type { UserIdentifier } from '../../common/identifiers';

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

  sealCompanyTaxId(taxId: string, projectId: string): SealedValue {
    return this.cipher.seal(taxId, companyAad(projectId));
  }

  openCompanyTaxId(sealed: SealedValue, projectId: string): string {
    return this.cipher.open(sealed, companyAad(projectId));
  }
}

function recordAad({ projectId, user, recordId }: RecordBinding): string {
  return `tax_records/${projectId}/${user.identifierType}:${user.identifier}/${recordId}/tax_id_number`;
}

function companyAad(projectId: string): string {
  return `tax_settings/${projectId}/company_tax_id`;
}
