import {
  Chapter3Status as Chapter3StatusEnum,
  EffectiveTaxStatus as EffectiveTaxStatusEnum,
  FormType as FormTypeEnum,
  RecordStatus as RecordStatusEnum,
  TaxClassification as TaxClassificationEnum,
  TinType as TinTypeEnum,
  W8ExpiryRule as W8ExpiryRuleEnum,
} from '../../../gen/referral/tax/v1/enums';
import { type EnumName, enumNames } from '../../rules/enums';

/**
 * The tax service's vocabularies, as the domain, the tables and the API spell them ("w8bene").
 * Each is derived from its enum in proto/referral/tax/v1/enums.proto: add a value there, and every
 * exhaustive map over it below and in the domain stops compiling until it is handled.
 */
export type FormType = EnumName<typeof FormTypeEnum>;
export type RecordStatus = EnumName<typeof RecordStatusEnum>;
export type EffectiveTaxStatus = EnumName<typeof EffectiveTaxStatusEnum>;
export type W8ExpiryRule = EnumName<typeof W8ExpiryRuleEnum>;
export type TaxClassification = EnumName<typeof TaxClassificationEnum>;
export type Chapter3Status = EnumName<typeof Chapter3StatusEnum>;
/** The type a W-9's tax id is given on the form. */
export type W9TinType = EnumName<typeof TinTypeEnum>;
/** The type of a stored tax id: a W-9's, or a W-8's foreign TIN (which has no type on the wire). */
export type TinType = W9TinType | 'foreign';

export const FORM_TYPES = enumNames(FormTypeEnum);
export const W8_EXPIRY_RULES = enumNames(W8ExpiryRuleEnum);
export const TAX_CLASSIFICATIONS = enumNames(TaxClassificationEnum);
export const CHAPTER3_STATUSES = enumNames(Chapter3StatusEnum);
export const W9_TIN_TYPES = enumNames(TinTypeEnum);

/** Who changed a record's status (the history's actor_type). */
export type ActorType = 'affiliate' | 'admin' | 'system';
