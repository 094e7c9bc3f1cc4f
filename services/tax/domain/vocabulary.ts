import * as enums from '../../../gen/referral/tax/v1/enums';
import { enumNames, type Vocabularies } from '../../rules/enums';

/**
 * The tax service's vocabularies, as the domain, the tables and the API spell them ("w8bene").
 * Each is derived from its enum in proto/referral/tax/v1/enums.proto: add a value there, and every
 * exhaustive map over it below and in the domain stops compiling until it is handled.
 */
type Vocabulary = Vocabularies<typeof enums>;

export type FormType = Vocabulary['FormType'];
export type RecordStatus = Vocabulary['RecordStatus'];
export type EffectiveTaxStatus = Vocabulary['EffectiveTaxStatus'];
export type W8ExpiryRule = Vocabulary['W8ExpiryRule'];
export type TaxClassification = Vocabulary['TaxClassification'];
export type Chapter3Status = Vocabulary['Chapter3Status'];
/** The type a W-9's tax id is given on the form. */
export type W9TinType = Vocabulary['TinType'];
/** The type of a stored tax id: a W-9's, or a W-8's foreign TIN (which has no type on the wire). */
export type TinType = W9TinType | 'foreign';

export const FORM_TYPES = enumNames(enums.FormType);
export const W8_EXPIRY_RULES = enumNames(enums.W8ExpiryRule);
export const TAX_CLASSIFICATIONS = enumNames(enums.TaxClassification);
export const CHAPTER3_STATUSES = enumNames(enums.Chapter3Status);
export const W9_TIN_TYPES = enumNames(enums.TinType);

/** Who changed a record's status (the history's actor_type). */
export type ActorType = 'affiliate' | 'admin' | 'system';
