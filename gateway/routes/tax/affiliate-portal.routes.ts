import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { presentTaxInfo, presentTaxStatus, toTaxForm } from './tax.presenters';
import { taxInfoBody, taxInfoSchema, taxStatusSchema } from './tax.schemas';
import { walletSession } from '../route-access';

const tags = ['Affiliate portal'];

/** A session stands for one wallet: these routes read and write that wallet's tax info only. */
const self = (address: string) => ({ identifier: address, identifierType: 'evm_address' });

/** The affiliate's own tax information, under /api/v1/projects/:projectId/affiliate-portal (wallet session). */
export function affiliatePortalRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/affiliate-portal/tax-info',
        operationId: 'submitTaxInfo',
        summary: 'Submit a tax form (W-9, W-8BEN or W-8BEN-E) for the signed-in wallet',
        description:
          'The status becomes `submitted`. Allowed with nothing on file, or when the current form is submitted, revoked or expired: ' +
          'the new form replaces it and the earlier one is kept as history. While the current form is approved (and not expired) ' +
          'a submission answers 409 TAX_INFO_INVALID_TRANSITION. Every problem answers 400 naming the field, and nothing is stored.',
        tags,
        auth: walletSession,
        body: taxInfoBody,
        responses: {
          201: { description: 'The stored form, tax id masked', schema: taxInfoSchema },
          409: { description: 'TAX_INFO_INVALID_TRANSITION: the current form is approved' },
        },
      },
      async ({ body, caller }) => {
        const info = await clients.tax.submitTaxInfo({ projectId: caller.projectId, user: self(caller.address), form: toTaxForm(body) });
        return { status: 201, body: presentTaxInfo(info) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/affiliate-portal/tax-info',
        operationId: 'getOwnTaxInfo',
        summary: 'The signed-in wallet’s current tax form, tax id masked',
        description: '404 TAX_INFO_NOT_FOUND when nothing was submitted.',
        tags,
        auth: walletSession,
        responses: {
          200: { description: 'The current form', schema: taxInfoSchema },
          409: { description: 'TAX_INFO_UNREADABLE: the stored form’s tax id cannot be decrypted; submit the form again' },
        },
      },
      async ({ caller }) => {
        const info = await clients.tax.getTaxInfo({ projectId: caller.projectId, user: self(caller.address) });
        return { status: 200, body: presentTaxInfo(info) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/affiliate-portal/tax-status',
        operationId: 'getOwnTaxStatus',
        summary: 'The signed-in wallet’s tax status',
        description:
          '`not_required` whenever the project does not require tax info; `not_submitted` when it does and nothing was submitted; ' +
          'otherwise the current form’s status (an approved W-8 past `expires_at` is `expired`).',
        tags,
        auth: walletSession,
        responses: { 200: { description: 'The status', schema: taxStatusSchema } },
      },
      async ({ caller }) => {
        const status = await clients.tax.getTaxStatus({ projectId: caller.projectId, user: self(caller.address) });
        return { status: 200, body: presentTaxStatus(status) };
      },
    ),
  ];
}
