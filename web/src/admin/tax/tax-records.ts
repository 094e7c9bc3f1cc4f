import type { ApiQuery, ApiResult } from '../../api/client';

/** A record as the review queue lists it: the tax id masked (or null when unreadable). */
export type TaxSubmission = ApiResult<'/api/v1/projects/{projectId}/tax-submissions', 'get'>['results'][number];
export type RecordStatus = NonNullable<NonNullable<ApiQuery<'/api/v1/projects/{projectId}/tax-submissions', 'get'>>['status']>;
/** The audited read: status and the current record, tax id in full. */
export type UnmaskedTaxStatus = ApiResult<'/api/v1/projects/{projectId}/affiliates/{userIdentifier}/tax-status', 'get'>;
export type UnmaskedRecord = NonNullable<UnmaskedTaxStatus['tax_info']>;

export const RECORD_STATUSES: Array<{ value: RecordStatus; label: string }> = [
  { value: 'submitted', label: 'Submitted (awaiting review)' },
  { value: 'approved', label: 'Approved' },
  { value: 'revoked', label: 'Revoked' },
  { value: 'expired', label: 'Expired' },
];

/** Whose record: what the affiliate routes take as path and query. */
export interface RecordOwner {
  identifier: string;
  identifierType: string;
}

export function ownerOf(record: { user_identifier: string; user_identifier_type: string }): RecordOwner {
  return { identifier: record.user_identifier, identifierType: record.user_identifier_type };
}

/** Where the section's pages live (under the router's /app basename). */
export const TAX_PATHS = {
  queue: '/admin/tax',
  settings: '/admin/tax/settings',
  auditLog: '/admin/tax/audit-log',
  /** The record page of an owner. */
  record: (owner: RecordOwner) => `/admin/tax/records/${encodeURIComponent(owner.identifierType)}/${encodeURIComponent(owner.identifier)}`,
};

/** Query keys of the section: every list of one project is refreshed together after a decision. */
export const taxKeys = {
  submissions: (projectId: string) => ['tax-submissions', projectId] as const,
  auditLog: (projectId: string) => ['tax-audit-log', projectId] as const,
  settings: (projectId: string) => ['tax-settings', projectId] as const,
};

/** Which transitions the API allows from a record status (approve only from submitted; revoke from submitted or approved). */
export function allowedActions(status: RecordStatus): { approve: boolean; revoke: boolean } {
  return { approve: status === 'submitted', revoke: status === 'submitted' || status === 'approved' };
}

/** The tax id as the API answered it, or why there is none. */
export function taxIdText(record: {
  tax_id_number: string | null;
  foreign_tin_not_required: boolean;
  foreign_tin_not_required_reason: string | null;
}): string {
  if (record.tax_id_number) return record.tax_id_number;
  return record.foreign_tin_not_required || record.foreign_tin_not_required_reason ? 'None (not required)' : '—';
}
