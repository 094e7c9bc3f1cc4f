import type { UserRef } from '../../../gen/referral/common/v1/common';
import {
  Chapter3Status,
  EffectiveTaxStatus,
  FormType,
  RecordStatus,
  TaxClassification,
  TinType,
  W8ExpiryRule,
} from '../../../gen/referral/tax/v1/enums';
import type { AuditEntry, PostalAddress, TaxForm, TaxInfo, TaxSettings, TaxStatus } from '../../../gen/referral/tax/v1/tax';
import type { z } from 'zod';
import { enumValue } from '../../../services/rules/enums';
import { camelCase, nameOf, optionalNameOf, required, snakeCase } from '../../http/present';
import type { addressBody, TaxInfoBody } from './tax.schemas';

/** gRPC messages -> the JSON the API documents (tax.schemas.ts). */
export function presentUser(user: UserRef | undefined) {
  const { identifier, identifierType } = required(user, 'user');
  return { user_identifier: identifier, user_identifier_type: identifierType };
}

/** The record; `taxIdNumber` is the masked form unless the caller passes the unmasked one. */
export function presentTaxInfo(info: TaxInfo, taxIdNumber: string | null = info.taxIdNumberMasked ?? null) {
  const { user, status, formType, tinType, taxClassification, chapter3Status, taxIdNumberMasked: _masked, unreadable: _unreadable, ...fields } = info;
  return {
    ...snakeCase(fields, ['submittedAt']),
    ...presentUser(user),
    form_type: nameOf(FormType, formType, 'form_type'),
    status: nameOf(RecordStatus, status, 'status'),
    tax_id_number: taxIdNumber,
    tin_type: optionalNameOf(TinType, tinType, 'tin_type'),
    tax_classification: optionalNameOf(TaxClassification, taxClassification, 'tax_classification'),
    chapter3_status: optionalNameOf(Chapter3Status, chapter3Status, 'chapter3_status'),
  };
}

export function presentTaxStatus(taxStatus: TaxStatus) {
  const { user: _user, status, formType, ...fields } = taxStatus;
  return {
    ...snakeCase(fields),
    status: nameOf(EffectiveTaxStatus, status, 'status'),
    form_type: optionalNameOf(FormType, formType, 'form_type'),
  };
}

export function presentTaxSettings(settings: TaxSettings) {
  const { companyTaxIdMasked, w8ExpiryRule, ...fields } = settings;
  return {
    ...snakeCase(fields),
    company_tax_id: companyTaxIdMasked ?? null,
    w8_expiry_rule: nameOf(W8ExpiryRule, w8ExpiryRule, 'w8_expiry_rule'),
  };
}

export function presentAuditEntry(entry: AuditEntry) {
  const { user, ...fields } = entry;
  return { ...snakeCase(fields, ['occurredAt']), ...presentUser(user) };
}

/** The submitted JSON -> the gRPC form; fields the body does not have stay unset. */
export function toTaxForm(body: TaxInfoBody): TaxForm {
  const form = camelCase(body);
  const vocabularies = {
    formType: enumValue(FormType, body.form_type),
    taxClassification: body.form_type === 'w9' ? enumValue(TaxClassification, body.tax_classification) : undefined,
    tinType: body.form_type === 'w9' ? enumValue(TinType, body.tin_type) : undefined,
    chapter3Status: body.form_type === 'w8bene' ? enumValue(Chapter3Status, body.chapter3_status) : undefined,
  };
  return { ...form, ...vocabularies };
}

/** A settings body's address: undefined (absent or null) clears it when the field is listed. */
export function toSettingsAddress(address: z.output<typeof addressBody> | null | undefined): PostalAddress | undefined {
  return address ? camelCase(address) : undefined;
}
