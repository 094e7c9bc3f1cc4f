import type { AuditEntry, PostalAddress, TaxForm, TaxInfo, TaxSettings, TaxStatus } from '../../../gen/referral/tax/v1/tax';
import { iso, isoOrNull } from '../../http/present';
import type {
  Chapter3Status,
  FormType,
  RecordStatus,
  TaxClassification,
  TaxInfoBody,
  TaxStatusValue,
  TinType,
  W8ExpiryRule,
} from './tax.schemas';

/** gRPC messages -> the JSON the API documents (tax.schemas.ts). */
export function presentAddress(address: PostalAddress | undefined) {
  if (!address) return null;
  return {
    line1: address.line1,
    line2: address.line2 ?? null,
    city: address.city,
    region: address.region ?? null,
    postal_code: address.postalCode,
    country: address.country,
  };
}

/** The record; `taxIdNumber` is the masked form unless the caller passes the unmasked one. */
export function presentTaxInfo(info: TaxInfo, taxIdNumber: string | null = info.taxIdNumberMasked ?? null) {
  return {
    id: info.id,
    user_identifier: info.user?.identifier ?? '',
    user_identifier_type: info.user?.identifierType ?? '',
    form_type: info.formType as FormType,
    status: info.status as RecordStatus,
    legal_name: info.legalName,
    country: info.country,
    tax_id_number: taxIdNumber,
    tin_type: (info.tinType ?? null) as TinType | null,
    tax_classification: (info.taxClassification ?? null) as TaxClassification | null,
    address: presentAddress(info.address),
    date_of_birth: info.dateOfBirth ?? null,
    permanent_address: presentAddress(info.permanentAddress),
    foreign_tin_not_required: info.foreignTinNotRequired,
    foreign_tin_not_required_reason: info.foreignTinNotRequiredReason ?? null,
    chapter3_status: (info.chapter3Status ?? null) as Chapter3Status | null,
    signature_name: info.signatureName,
    signature_date: info.signatureDate,
    submitted_at: iso(info.submittedAt),
    approved_at: isoOrNull(info.approvedAt),
    expires_at: isoOrNull(info.expiresAt),
    revoked_at: isoOrNull(info.revokedAt),
    revoked_reason: info.revokedReason ?? null,
  };
}

export function presentTaxStatus(status: TaxStatus) {
  return {
    status: status.status as TaxStatusValue,
    form_type: (status.formType ?? null) as FormType | null,
    submitted_at: isoOrNull(status.submittedAt),
    approved_at: isoOrNull(status.approvedAt),
    expires_at: isoOrNull(status.expiresAt),
    revoked_reason: status.revokedReason ?? null,
  };
}

export function presentTaxSettings(settings: TaxSettings) {
  return {
    require_tax_info: settings.requireTaxInfo,
    company_legal_name: settings.companyLegalName ?? null,
    company_address: presentAddress(settings.companyAddress),
    company_tax_id: settings.companyTaxIdMasked ?? null,
    company_contact_email: settings.companyContactEmail ?? null,
    w8_expiry_rule: settings.w8ExpiryRule as W8ExpiryRule,
    updated_at: isoOrNull(settings.updatedAt),
  };
}

export function presentAuditEntry(entry: AuditEntry) {
  return {
    id: entry.id,
    action: entry.action,
    actor_api_key_id: entry.actorApiKeyId,
    user_identifier: entry.user?.identifier ?? '',
    user_identifier_type: entry.user?.identifierType ?? '',
    tax_record_id: entry.taxRecordId ?? null,
    request_id: entry.requestId ?? null,
    occurred_at: iso(entry.occurredAt),
  };
}

function toAddress(address: { line1: string; line2?: string | undefined; city: string; region?: string | undefined; postal_code: string; country: string }): PostalAddress {
  return {
    line1: address.line1,
    line2: address.line2,
    city: address.city,
    region: address.region,
    postalCode: address.postal_code,
    country: address.country,
  };
}

/** The submitted JSON -> the gRPC form; fields the body does not have stay unset. */
export function toTaxForm(body: TaxInfoBody): TaxForm {
  const common = {
    formType: body.form_type,
    legalName: body.legal_name,
    country: body.country,
    taxIdNumber: body.tax_id_number,
    signatureName: body.signature_name,
    signatureDate: body.signature_date,
  };
  switch (body.form_type) {
    case 'w9':
      return { ...common, taxClassification: body.tax_classification, tinType: body.tin_type, address: toAddress(body.address) };
    case 'w8ben':
      return {
        ...common,
        dateOfBirth: body.date_of_birth,
        foreignTinNotRequired: body.foreign_tin_not_required,
        permanentAddress: toAddress(body.permanent_address),
      };
    case 'w8bene':
      return {
        ...common,
        chapter3Status: body.chapter3_status,
        foreignTinNotRequiredReason: body.foreign_tin_not_required_reason,
        permanentAddress: toAddress(body.permanent_address),
      };
  }
}

/** A settings body's address: undefined (absent or null) clears it when the field is listed. */
export function toSettingsAddress(address: Parameters<typeof toAddress>[0] | null | undefined): PostalAddress | undefined {
  return address ? toAddress(address) : undefined;
}
