import type { TestProject } from '../helpers/fixtures';
import type { ApiResponse } from '../helpers/http';
import type { TestStack } from '../helpers/stack';
import { newWallet, signInSession, type TestWallet } from '../helpers/wallet';

/** Valid tax ids used across the tax tests (fictional, but each passes its format rules). */
export const TIN = {
  ssn: '123-45-6789',
  ssnDigits: '123456789',
  ein: '12-3456789',
  einDigits: '123456789',
  foreign: 'DE 9876 5432 10',
  foreignStored: 'DE9876543210',
};

/** The default TestClock reads 2026-11-21T12:00Z: these dates are in its past. */
/** The tax status (affiliate portal, admin) of a user who has never submitted a form. */
export const NOT_SUBMITTED = {
  status: 'not_submitted',
  form_type: null,
  submitted_at: null,
  approved_at: null,
  expires_at: null,
  revoked_reason: null,
} as const;

export const SIGNED_ON = '2026-11-20';

const usAddress = { line1: '1 Main St', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' };
const deAddress = { line1: 'Unter den Linden 1', city: 'Berlin', postal_code: '10117', country: 'DE' };

export function w9(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    form_type: 'w9',
    legal_name: 'Ada Lovelace',
    country: 'US',
    tax_id_number: TIN.ssn,
    tin_type: 'ssn',
    tax_classification: 'individual',
    address: usAddress,
    signature_name: 'Ada Lovelace',
    signature_date: SIGNED_ON,
    ...overrides,
  };
}

export function w8ben(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    form_type: 'w8ben',
    legal_name: 'Grace Hopper',
    country: 'DE',
    tax_id_number: TIN.foreign,
    date_of_birth: '1990-12-09',
    permanent_address: deAddress,
    signature_name: 'Grace Hopper',
    signature_date: SIGNED_ON,
    ...overrides,
  };
}

export function w8bene(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    form_type: 'w8bene',
    legal_name: 'Analytical Engines GmbH',
    country: 'DE',
    tax_id_number: TIN.foreign,
    chapter3_status: 'corporation',
    permanent_address: deAddress,
    signature_name: 'Charles Babbage',
    signature_date: SIGNED_ON,
    ...overrides,
  };
}

/** A signed-in affiliate of one project, with shortcuts to the portal endpoints. */
export interface Affiliate {
  wallet: TestWallet;
  /** A live session token; signs in again when the test clock has moved past the last one. */
  token(): Promise<string>;
  submit(body: Record<string, unknown>): Promise<ApiResponse>;
  taxInfo(): Promise<ApiResponse>;
  status(): Promise<ApiResponse>;
}

export async function signedInAffiliate(stack: TestStack, project: TestProject, wallet?: TestWallet): Promise<Affiliate> {
  const owner = wallet ?? (await newWallet());
  let session = await signInSession(stack, owner);
  const token = async () => {
    const now = stack.clock.now().getTime();
    if (now >= session.expiresAt.getTime() || now < session.expiresAt.getTime() - 900_000) session = await signInSession(stack, owner);
    return session.token;
  };
  const base = `/api/v1/projects/${project.id}/affiliate-portal`;
  return {
    wallet: owner,
    token,
    submit: async (body) => stack.api.post(`${base}/tax-info`, { key: await token(), body }),
    taxInfo: async () => stack.api.get(`${base}/tax-info`, { key: await token() }),
    status: async () => stack.api.get(`${base}/tax-status`, { key: await token() }),
  };
}

export function adminPaths(project: TestProject, address: string) {
  const affiliate = `/api/v1/projects/${project.id}/affiliates/${address}`;
  return {
    approve: `${affiliate}/tax-info/approve`,
    revoke: `${affiliate}/tax-info/revoke`,
    taxStatus: `${affiliate}/tax-status`,
    settings: `/api/v1/projects/${project.id}/tax-settings`,
    submissions: `/api/v1/projects/${project.id}/tax-submissions`,
    auditLog: `/api/v1/projects/${project.id}/audit-log`,
  };
}

export async function requireTaxInfo(stack: TestStack, project: TestProject, settings: Record<string, unknown> = {}): Promise<void> {
  const response = await stack.api.patch(adminPaths(project, '0x').settings, {
    key: project.keys.admin,
    body: { require_tax_info: true, ...settings },
  });
  if (response.status !== 200) throw new Error(`tax settings failed: ${response.status} ${response.text}`);
}

/** Rows of the tax schema for one project, straight from PostgreSQL. */
export async function taxRecords(stack: TestStack, projectId: string) {
  const { rows } = await stack.db.query(
    `SELECT id, identifier, status, form_type, superseded_at, superseded_by, expires_at, expired_at
     FROM tax.tax_records WHERE project_id = $1 ORDER BY submitted_at, superseded_at NULLS LAST, id`,
    [projectId],
  );
  return rows;
}

export async function statusEvents(stack: TestStack, projectId: string, identifier: string) {
  const { rows } = await stack.db.query(
    `SELECT record_id, from_status, to_status, reason, actor_type, actor_id, occurred_at
     FROM tax.tax_status_events WHERE project_id = $1 AND identifier = $2 ORDER BY id`,
    [projectId, identifier],
  );
  return rows;
}
