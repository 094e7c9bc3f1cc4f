import type { SealedValue } from '../../platform/crypto/field-cipher';
import type { UserIdentifier } from '../../rules/identifiers';
import type { Address } from './address';
import type { ActorType, Chapter3Status, FormType, RecordStatus, TaxClassification, TinType } from './vocabulary';

/** What the affiliate stated on the form (the tax id travels separately, sealed). */
export interface TaxFormFields {
  formType: FormType;
  legalName: string;
  country: string;
  tinType: TinType | null;
  taxClassification: TaxClassification | null;
  address: Address | null;
  permanentAddress: Address | null;
  dateOfBirth: string | null;
  chapter3Status: Chapter3Status | null;
  foreignTinNotRequired: boolean;
  foreignTinNotRequiredReason: string | null;
  signatureName: string;
  signatureDate: string;
}

/** One submitted form: a user's current record, or history. */
export interface TaxRecord extends TaxFormFields {
  id: string;
  projectId: string;
  user: UserIdentifier;
  /** As stored; an approved W-8 past expires_at may not have been swept yet (see recordStatusAt). */
  status: RecordStatus;
  sealedTaxId: SealedValue | null;
  submittedAt: Date;
  approvedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  revokedReason: string | null;
}

export interface NewTaxRecord {
  id: string;
  projectId: string;
  user: UserIdentifier;
  fields: TaxFormFields;
  sealedTaxId: SealedValue | null;
  now: Date;
}

/** Who changes a record's status, as its history records it. */
export interface Actor {
  type: ActorType;
  id: string | null;
}

/** The sweep expires W-8s; nobody in particular. */
export const SYSTEM_ACTOR: Actor = { type: 'system', id: null };

/** Thrown when the user's current record may not be replaced (approved), or a concurrent submission won. */
export class CurrentRecordBlocks extends Error {}
