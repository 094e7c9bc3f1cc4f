import type { AuditEntry, TaxInfo, TaxSettings, TaxStatus } from '../../../gen/referral/tax/v1/tax';
import {
  Chapter3Status,
  EffectiveTaxStatus,
  FormType,
  RecordStatus,
  TaxClassification,
  TinType,
  W8ExpiryRule,
} from '../../../gen/referral/tax/v1/enums';
import { enumValue, optionalEnumValue } from '../../rules/enums';
import { withoutNulls } from '../../platform/grpc/messages';
import type { AuditEntryRecord } from '../repositories/audit-log.repository';
import type { TaxInfoView } from '../domain/tax-info-view';
import type { TaxSettingsView } from '../domain/tax-settings.service';
import type { TaxStatusView } from '../domain/tax-status';

/** Views -> protobuf messages: nulls become absent optional fields, vocabularies become their enums. */
export function toTaxInfoMessage(view: TaxInfoView): TaxInfo {
  return {
    ...withoutNulls(view),
    status: enumValue(RecordStatus, view.status),
    formType: enumValue(FormType, view.formType),
    // A W-8's foreign TIN has no type on the wire.
    tinType: view.tinType === 'foreign' ? undefined : optionalEnumValue(TinType, view.tinType),
    taxClassification: optionalEnumValue(TaxClassification, view.taxClassification),
    chapter3Status: optionalEnumValue(Chapter3Status, view.chapter3Status),
  };
}

export function toTaxStatusMessage(view: TaxStatusView): TaxStatus {
  return {
    ...withoutNulls(view),
    status: enumValue(EffectiveTaxStatus, view.status),
    formType: optionalEnumValue(FormType, view.formType),
  };
}

export function toTaxSettingsMessage(view: TaxSettingsView): TaxSettings {
  return { ...withoutNulls(view), w8ExpiryRule: enumValue(W8ExpiryRule, view.w8ExpiryRule) };
}

export function toAuditEntryMessage(entry: AuditEntryRecord): AuditEntry {
  return withoutNulls(entry);
}
