import { invalidFields } from '../../rules/errors';
import type { PaidConversionRecord, PaidConversionRepository } from '../repositories/paid-conversion.repository';
import { requireProjectId } from './project';

/** Conversions per page of ListPaidConversions. */
export const MAX_PAID_CONVERSIONS_PAGE = 1_000;

/**
 * The project's paid conversions for consumers that rebuild a projection from them (the agency's
 * affiliate metrics): the same facts claim.conversion.processed carried, paged by id.
 */
export class PaidConversionService {
  constructor(private readonly conversions: PaidConversionRepository) {}

  async page(
    projectIdInput: string,
    afterId: string | null,
    limit: number,
  ): Promise<{ records: PaidConversionRecord[]; nextAfterId: string | null }> {
    const projectId = requireProjectId(projectIdInput);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAID_CONVERSIONS_PAGE) {
      throw invalidFields([{ field: 'limit', reason: `must be 1 to ${MAX_PAID_CONVERSIONS_PAGE}` }]);
    }
    const records = await this.conversions.page(projectId, afterId, limit);
    return { records, nextAfterId: records.length === limit ? records.at(-1)!.id : null };
  }
}
