import { Chapter3Status, FormType, RecordStatus, TaxClassification, TinType, W8ExpiryRule } from '../../../gen/referral/tax/v1/enums';
import type { TaxForm, TaxServiceServer } from '../../../gen/referral/tax/v1/tax';
import { enumInput, optionalEnum, requireField, requireText } from '../../rules/fields';
import { pageInfo, toPage } from '../../rules/pagination';
import { implementService } from '../../platform/grpc/service';
import type { Logger } from '../../platform/logger';
import type { TaxDomain } from '../composition';
import type { TaxFormInput } from '../domain/tax-form';
import { toAuditEntryMessage, toTaxInfoMessage, toTaxSettingsMessage, toTaxStatusMessage } from './tax.mappers';

/** A form as the domain checks it (whole, so one answer lists every problem): vocabularies by name. */
function toTaxFormInput(form: TaxForm): TaxFormInput {
  return {
    ...form,
    formType: enumInput(FormType, form.formType),
    taxClassification: enumInput(TaxClassification, form.taxClassification),
    tinType: enumInput(TinType, form.tinType),
    chapter3Status: enumInput(Chapter3Status, form.chapter3Status),
  };
}

/** Administrative actions are attributed: the API key that acts. */
function actorKeyId(req: { actor?: { apiKeyId: string } | undefined }): string {
  return requireText(req.actor?.apiKeyId, 'actor.api_key_id', 'is required: administrative actions are attributed');
}

/**
 * Translates protobuf <-> domain and delegates; no rules live here. Fields the contract requires
 * are resolved here (services/rules/fields.ts), so the domain takes them as given.
 */
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
            w8ExpiryRule: enumInput(W8ExpiryRule, req.w8ExpiryRule),
          }),
        ),

      submitTaxInfo: async (req) =>
        toTaxInfoMessage(await domain.taxInfo.submit(req.projectId, requireField(req.user, 'user'), toTaxFormInput(requireField(req.form, 'form')))),

      getTaxInfo: async (req) => toTaxInfoMessage(await domain.taxInfo.getCurrent(req.projectId, requireField(req.user, 'user'))),

      getTaxStatus: async (req) => toTaxStatusMessage(await domain.taxInfo.status(req.projectId, requireField(req.user, 'user'))),

      batchGetTaxStatuses: async (req) => ({
        results: (await domain.taxInfo.statuses(req.projectId, req.users)).map(toTaxStatusMessage),
      }),

      listTaxSubmissions: async (req) => {
        const page = toPage(req.page);
        const { records, total } = await domain.review.list(req.projectId, optionalEnum(RecordStatus, req.status, 'status'), page, req.user);
        return { results: records.map(toTaxInfoMessage), pageInfo: pageInfo(page, total) };
      },

      approveTaxInfo: async (req) => toTaxStatusMessage(await domain.review.approve(req.projectId, requireField(req.user, 'user'), actorKeyId(req))),

      revokeTaxInfo: async (req) =>
        toTaxStatusMessage(await domain.review.revoke(req.projectId, requireField(req.user, 'user'), actorKeyId(req), req.reason)),

      getTaxInfoUnmasked: async (req, context) => {
        const result = await domain.review.readUnmasked(req.projectId, requireField(req.user, 'user'), actorKeyId(req), context.requestId);
        return {
          status: toTaxStatusMessage(result.status),
          taxInfo: result.record ? toTaxInfoMessage(result.record) : undefined,
          taxIdNumber: result.taxIdNumber ?? undefined,
        };
      },

      listAuditLog: async (req) => {
        const page = toPage(req.page);
        const { records, total } = await domain.auditLog.list(req.projectId, page);
        return { results: records.map(toAuditEntryMessage), pageInfo: pageInfo(page, total) };
      },
    },
    logger,
  );
}
