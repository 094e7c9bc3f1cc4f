import type { IdentifierType } from '../rules/identifiers';
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { OutboxTables } from '../platform/outbox/tables';
import type { ActorType, Chapter3Status, FormType, RecordStatus, TaxClassification, TinType, W8ExpiryRule } from './domain/vocabulary';
import type { Nullable, OptionalNullable, Timestamp } from '../platform/db/column-types';

/** The tax schema, as Kysely sees it. Migrations in ./migrations are the source of truth. */
export interface TaxDatabase extends OutboxTables {
  tax_settings: TaxSettingsTable;
  tax_records: TaxRecordTable;
  tax_status_events: TaxStatusEventTable;
  tax_audit_log: TaxAuditLogTable;
}

/** A DATE column: YYYY-MM-DD text both ways (services/platform/db/type-parsers.ts), never a local-time Date. */
type DateColumn = ColumnType<string, string, string>;
/** A jsonb column: written as JSON text (or NULL), read back parsed. */
type Json<T> = ColumnType<T, string | null, string | null>;

export interface AddressJson {
  line1: string;
  line2: string | null;
  city: string;
  region: string | null;
  postal_code: string;
  country: string;
}

/** One row per project that has changed its settings; a project without one has the defaults. */
export interface TaxSettingsTable {
  project_id: string;
  require_tax_info: ColumnType<boolean, boolean | undefined, boolean>;
  company_legal_name: Nullable<string>;
  company_address: Json<Nullable<AddressJson>>;
  company_tax_id_key_id: Nullable<string>;
  company_tax_id_iv: Nullable<Buffer>;
  company_tax_id_ciphertext: Nullable<Buffer>;
  company_tax_id_auth_tag: Nullable<Buffer>;
  company_contact_email: Nullable<string>;
  /** The rule the project chose; null while it follows the default (migration 0006_w8_expiry_rule_default). */
  w8_expiry_rule: OptionalNullable<W8ExpiryRule>;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Counts the row's writes (1 for the first): the order of tax.tax_settings.changed events. */
  version: Generated<bigint>;
}

/** Every form ever submitted; the current one per (project, user) has superseded_at and quarantined_at NULL. */
export interface TaxRecordTable {
  id: string;
  project_id: string;
  /** Written only from a checked identifier (services/rules/identifiers.ts). */
  identifier_type: IdentifierType;
  identifier: string;
  form_type: FormType;
  status: RecordStatus;
  legal_name: string;
  country: string;
  tin_type: Nullable<TinType>;
  tax_id_key_id: Nullable<string>;
  tax_id_iv: Nullable<Buffer>;
  tax_id_ciphertext: Nullable<Buffer>;
  tax_id_auth_tag: Nullable<Buffer>;
  tax_classification: Nullable<TaxClassification>;
  address: Json<Nullable<AddressJson>>;
  permanent_address: Json<Nullable<AddressJson>>;
  date_of_birth: Nullable<DateColumn>;
  chapter3_status: Nullable<Chapter3Status>;
  foreign_tin_not_required: boolean;
  foreign_tin_not_required_reason: Nullable<string>;
  signature_name: string;
  signature_date: DateColumn;
  submitted_at: Timestamp;
  approved_at: Nullable<Timestamp>;
  approved_by: Nullable<string>;
  expires_at: Nullable<Timestamp>;
  expired_at: Nullable<Timestamp>;
  revoked_at: Nullable<Timestamp>;
  revoked_by: Nullable<string>;
  revoked_reason: Nullable<string>;
  superseded_at: Nullable<Timestamp>;
  superseded_by: Nullable<string>;
  /** Set aside by migration 0002 (its tax id opens under no binding): no longer anyone's current record. */
  quarantined_at: Nullable<Timestamp>;
  quarantine_reason: Nullable<string>;
}

/** The status history: one row per change, at most one per (record, status reached). */
export interface TaxStatusEventTable {
  id: Generated<string>;
  record_id: string;
  project_id: string;
  /** Written only from a checked identifier (services/rules/identifiers.ts). */
  identifier_type: IdentifierType;
  identifier: string;
  from_status: string;
  to_status: RecordStatus;
  reason: Nullable<string>;
  actor_type: ActorType;
  actor_id: Nullable<string>;
  occurred_at: Timestamp;
}

export interface TaxAuditLogTable {
  id: Generated<string>;
  project_id: string;
  action: string;
  actor_type: 'api_key';
  actor_id: string;
  /** Written only from a checked identifier (services/rules/identifiers.ts). */
  identifier_type: IdentifierType;
  identifier: string;
  record_id: Nullable<string>;
  request_id: Nullable<string>;
  occurred_at: Timestamp;
}

export type TaxSettingsRow = Selectable<TaxSettingsTable>;
export type TaxAuditLogRow = Selectable<TaxAuditLogTable>;
