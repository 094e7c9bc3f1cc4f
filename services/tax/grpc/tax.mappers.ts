import type { AuditEntry, PostalAddress, TaxInfo, TaxSettings, TaxStatus } from '../../../gen/referral/tax/v1/tax';
import type { Address } from '../repositories/address';
import type { AuditEntryRecord } from '../repositories/audit-log.repository';
import type { TaxInfoView } from '../domain/tax-info-view';
import type { TaxSettingsView } from '../domain/tax-settings.service';
import type { TaxStatusView } from '../domain/tax-status';

/** Views -> protobuf messages. Nulls become absent optional fields. */
export function toAddressMessage(address: Address | null): PostalAddress | undefined {
  if (!address) return undefined;
  return {
    line1: address.line1,
    line2: address.line2 ?? undefined,
    city: address.city,
    region: address.region ?? undefined,
    postalCode: address.postalCode,
    country: address.country,
  };
}

export function toTaxInfoMessage(view: TaxInfoView): TaxInfo {
  return {
    id: view.id,
    user: { identifier: view.user.identifier, identifierType: view.user.identifierType },
    status: view.status,
    formType: view.formType,
    legalName: view.legalName,
    country: view.country,
    taxIdNumberMasked: view.taxIdMasked ?? undefined,
    tinType: view.tinType === 'foreign' ? undefined : (view.tinType ?? undefined),
    taxClassification: view.taxClassification ?? undefined,
    address: toAddressMessage(view.address),
    dateOfBirth: view.dateOfBirth ?? undefined,
    permanentAddress: toAddressMessage(view.permanentAddress),
    foreignTinNotRequired: view.foreignTinNotRequired,
    foreignTinNotRequiredReason: view.foreignTinNotRequiredReason ?? undefined,
    chapter3Status: view.chapter3Status ?? undefined,
    signatureName: view.signatureName,
    signatureDate: view.signatureDate,
    submittedAt: view.submittedAt,
    approvedAt: view.approvedAt ?? undefined,
    expiresAt: view.expiresAt ?? undefined,
    revokedAt: view.revokedAt ?? undefined,
    revokedReason: view.revokedReason ?? undefined,
    unreadable: view.unreadable,
  };
}

export function toTaxStatusMessage(view: TaxStatusView): TaxStatus {
  return {
    user: { identifier: view.user.identifier, identifierType: view.user.identifierType },
    status: view.status,
    formType: view.formType ?? undefined,
    submittedAt: view.submittedAt ?? undefined,
    approvedAt: view.approvedAt ?? undefined,
    expiresAt: view.expiresAt ?? undefined,
    revokedReason: view.revokedReason ?? undefined,
  };
}

export function toTaxSettingsMessage(view: TaxSettingsView): TaxSettings {
  return {
    requireTaxInfo: view.requireTaxInfo,
    companyLegalName: view.companyLegalName ?? undefined,
    companyAddress: toAddressMessage(view.companyAddress),
    companyTaxIdMasked: view.companyTaxIdMasked ?? undefined,
    companyContactEmail: view.companyContactEmail ?? undefined,
    w8ExpiryRule: view.w8ExpiryRule,
    updatedAt: view.updatedAt ?? undefined,
  };
}

export function toAuditEntryMessage(entry: AuditEntryRecord): AuditEntry {
  return {
    id: entry.id,
    action: entry.action,
    actorApiKeyId: entry.actorApiKeyId,
    user: { identifier: entry.user.identifier, identifierType: entry.user.identifierType },
    taxRecordId: entry.recordId ?? undefined,
    requestId: entry.requestId ?? undefined,
    occurredAt: entry.occurredAt,
  };
}
