import { RecordStatus, W8ExpiryRule } from '../../../gen/referral/tax/v1/enums';
import { optionalEnumValue } from '../../../services/rules/enums';
import { listBody, pageRequest } from '../../http/list';
import { required } from '../../http/present';
import type { CallerFor } from '../../auth/caller';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { presentAuditEntry, presentTaxInfo, presentTaxSettings, presentTaxStatus, presentUser, toSettingsAddress } from './tax.presenters';
import {
  adminTaxStatusSchema,
  affiliateQuery,
  auditLogSchema,
  listQuery,
  revokeBody,
  submissionsQuery,
  taxInfoListSchema,
  taxSettingsBody,
  taxSettingsSchema,
  taxStatusSchema,
} from './tax.schemas';
import { projectAdmin } from '../route-access';

const tags = ['Tax administration'];

/** Whose record an admin acts on (path and query), and who acts, as the history and the audit log name them. */
function adminAction(params: { userIdentifier: string }, query: { user_identifier_type: string }, caller: CallerFor<typeof projectAdmin>) {
  return {
    projectId: caller.projectId,
    user: { identifier: params.userIdentifier, identifierType: query.user_identifier_type },
    actor: { apiKeyId: caller.keyId },
  };
}

/** Tax settings, the review queue, approve/revoke, the unmasked read and its audit log (admin keys). */
export function taxAdminRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/tax-settings',
        operationId: 'getTaxSettings',
        summary: 'The project’s tax settings',
        tags,
        auth: projectAdmin,
        responses: { 200: { description: 'The settings (defaults until first changed)', schema: taxSettingsSchema } },
      },
      async ({ caller }) => ({
        status: 200,
        body: presentTaxSettings(await clients.tax.getTaxSettings({ projectId: caller.projectId })),
      }),
    ),
    defineRoute(
      {
        method: 'patch',
        path: '/api/v1/projects/:projectId/tax-settings',
        operationId: 'updateTaxSettings',
        summary: 'Change the project’s tax settings',
        description:
          'Only the fields present change; `null` clears a company field. Turning `require_tax_info` off or on changes no form: ' +
          'statuses read `not_required` while it is off. A new `w8_expiry_rule` applies to approvals from then on (forms already ' +
          'approved keep their `expires_at`). A project that never named a rule follows the default, `three_years_from_approval`; ' +
          'naming a rule pins it (`w8_expiry_rule_chosen: true`), even the default’s, and `w8_expiry_rule: null` follows the default again.',
        tags,
        auth: projectAdmin,
        body: taxSettingsBody,
        responses: { 200: { description: 'The settings', schema: taxSettingsSchema } },
      },
      async ({ body, caller }) => {
        const settings = await clients.tax.updateTaxSettings({
          projectId: caller.projectId,
          updateMask: Object.keys(body),
          requireTaxInfo: body.require_tax_info,
          companyLegalName: body.company_legal_name ?? undefined,
          companyAddress: toSettingsAddress(body.company_address),
          companyTaxId: body.company_tax_id ?? undefined,
          companyContactEmail: body.company_contact_email ?? undefined,
          w8ExpiryRule: optionalEnumValue(W8ExpiryRule, body.w8_expiry_rule),
        });
        return { status: 200, body: presentTaxSettings(settings) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/tax-submissions',
        operationId: 'listTaxSubmissions',
        summary: 'Current tax forms of the project, oldest submission first; `?status=submitted` is the review queue',
        description:
          'Tax ids are masked. A record whose tax id cannot be decrypted never fails the page: it is listed with `unreadable: true` ' +
          'and `tax_id_number: null`, with its `id` for an operator, and the other items read as usual.',
        tags,
        auth: projectAdmin,
        query: submissionsQuery,
        responses: { 200: { description: 'A page of forms', schema: taxInfoListSchema } },
      },
      async ({ query, caller }) => {
        const page = await clients.tax.listTaxSubmissions({
          projectId: caller.projectId,
          status: optionalEnumValue(RecordStatus, query.status),
          page: pageRequest(query),
          user: query.user_identifier === undefined ? undefined : { identifier: query.user_identifier, identifierType: query.user_identifier_type },
        });
        return { status: 200, body: listBody(page, (info) => ({ ...presentTaxInfo(info), unreadable: info.unreadable })) };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/affiliates/:userIdentifier/tax-info/approve',
        operationId: 'approveTaxInfo',
        summary: 'Approve the affiliate’s submitted tax form',
        description:
          'Only from `submitted` (otherwise 409 TAX_INFO_INVALID_TRANSITION). A W-8 gets its `expires_at` from the project’s expiry rule ' +
          '(by default 3 years after this approval); under a rule counted from the signature date, a W-8 already past it answers 409 ' +
          'TAX_FORM_EXPIRED.',
        tags,
        auth: projectAdmin,
        query: affiliateQuery,
        responses: {
          200: { description: 'The new status', schema: taxStatusSchema },
          409: { description: 'TAX_INFO_INVALID_TRANSITION or TAX_FORM_EXPIRED' },
        },
      },
      async ({ params, query, caller }) => {
        const status = await clients.tax.approveTaxInfo(adminAction(params, query, caller));
        return { status: 200, body: presentTaxStatus(status) };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/affiliates/:userIdentifier/tax-info/revoke',
        operationId: 'revokeTaxInfo',
        summary: 'Revoke the affiliate’s tax form',
        description: 'From `submitted` or `approved` (otherwise 409 TAX_INFO_INVALID_TRANSITION). The affiliate sees the reason and may resubmit.',
        tags,
        auth: projectAdmin,
        query: affiliateQuery,
        body: revokeBody,
        responses: {
          200: { description: 'The new status', schema: taxStatusSchema },
          409: { description: 'TAX_INFO_INVALID_TRANSITION' },
        },
      },
      async ({ params, query, body, caller }) => {
        const status = await clients.tax.revokeTaxInfo({ ...adminAction(params, query, caller), reason: body.reason });
        return { status: 200, body: presentTaxStatus(status) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/affiliates/:userIdentifier/tax-status',
        operationId: 'getAffiliateTaxStatus',
        summary: 'The affiliate’s tax status and current form, tax id UNMASKED (audited)',
        description:
          'The one endpoint that returns a tax id in full. Each read that finds a form is written to the audit log ' +
          '(who, when, whose record; never the value): GET /api/v1/projects/{projectId}/audit-log.',
        tags,
        auth: projectAdmin,
        query: affiliateQuery,
        responses: {
          200: { description: 'Status and form', schema: adminTaxStatusSchema },
          409: { description: 'TAX_INFO_UNREADABLE: the current form’s tax id cannot be decrypted; the message names the record for an operator' },
        },
      },
      async ({ params, query, caller }) => {
        const result = await clients.tax.getTaxInfoUnmasked(adminAction(params, query, caller));
        const status = required(result.status, 'status');
        return {
          status: 200,
          body: {
            ...presentUser(status.user),
            ...presentTaxStatus(status),
            tax_info: result.taxInfo ? presentTaxInfo(result.taxInfo, result.taxIdNumber ?? null) : null,
          },
        };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/audit-log',
        operationId: 'listAuditLog',
        summary: 'Who read unmasked tax information, newest first',
        tags,
        auth: projectAdmin,
        query: listQuery,
        responses: { 200: { description: 'A page of audit entries', schema: auditLogSchema } },
      },
      async ({ query, caller }) => {
        const page = await clients.tax.listAuditLog({ projectId: caller.projectId, page: pageRequest(query) });
        return { status: 200, body: listBody(page, presentAuditEntry) };
      },
    ),
  ];
}
