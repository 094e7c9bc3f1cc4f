import type { TaxServiceServer } from '../../../gen/referral/tax/v1/tax';
import { toPage } from '../../common/db/pagination';
import { implementService } from '../../common/grpc/service';
import type { Logger } from '../../common/logger';
import type { AuditLogService } from '../domain/audit-log.service';
import type { TaxInfoService } from '../domain/tax-info.service';
import type { TaxReviewService } from '../domain/tax-review.service';
import type { TaxSettingsService } from '../domain/tax-settings.service';
import { toAuditEntryMessage, toTaxInfoMessage, toTaxSettingsMessage, toTaxStatusMessage } from './tax.mappers';

export interface TaxDomain {
  settings: TaxSettingsService;
  taxInfo: TaxInfoService;
  review: TaxReviewService;
  auditLog: AuditLogService;
}

/** Translates protobuf <-> domain and delegates; no rules live here. */
export function createTaxGrpcService(domain: TaxDomain, logger: Logger): TaxServiceServer {
  return implementService<TaxServiceServer>(
    'TaxService',
    {
      getTaxSettings: async (req) => toTaxSettingsMessage(await domain.settings.get(req.projectId)),

      updateTaxSettings: async (req) =>
        toTaxSettingsMessage(
          await domain.settings.update(req.projectId, req.updateMask ?? [], {
            requireTaxInfo: req.requireTaxInfo,
            companyLegalName: req.companyLegalName,
            companyAddress: req.companyAddress,
            companyTaxId: req.companyTaxId,
            companyContactEmail: req.companyContactEmail,
            w8ExpiryRule: req.w8ExpiryRule,
          }),
        ),

      submitTaxInfo: async (req) => toTaxInfoMessage(await domain.taxInfo.submit(req.projectId, req.user, req.form)),

      getTaxInfo: async (req) => toTaxInfoMessage(await domain.taxInfo.getCurrent(req.projectId, req.user)),

      getTaxStatus: async (req) => toTaxStatusMessage(await domain.taxInfo.status(req.projectId, req.user)),

      batchGetTaxStatuses: async (req) => ({
        results: (await domain.taxInfo.statuses(req.projectId, req.users)).map(toTaxStatusMessage),
      }),

      listTaxSubmissions: async (req) => {
        const page = toPage(req.page);
        const { records, total } = await domain.review.list(req.projectId, req.status, page);
        return { results: records.map(toTaxInfoMessage), totalResults: String(total), page: page.page, pageSize: page.pageSize };
      },

      approveTaxInfo: async (req) => toTaxStatusMessage(await domain.review.approve(req.projectId, req.user, req.actor?.apiKeyId)),

      revokeTaxInfo: async (req) =>
        toTaxStatusMessage(await domain.review.revoke(req.projectId, req.user, req.actor?.apiKeyId, req.reason)),

      getTaxInfoUnmasked: async (req, context) => {
        const result = await domain.review.readUnmasked(req.projectId, req.user, req.actor?.apiKeyId, context.requestId);
        return {
          status: toTaxStatusMessage(result.status),
          taxInfo: result.record ? toTaxInfoMessage(result.record) : undefined,
          taxIdNumber: result.taxIdNumber ?? undefined,
        };
      },

      listAuditLog: async (req) => {
        const page = toPage(req.page);
        const { records, total } = await domain.auditLog.list(req.projectId, page);
        return { results: records.map(toAuditEntryMessage), totalResults: String(total), page: page.page, pageSize: page.pageSize };
      },
    },
    logger,
  );
}
