import { defineConsumer } from '../../platform/outbox/consumer';
import type { AgencyDatabase } from '../database';
import { applyTaxRequirement, applyTaxStatuses } from '../repositories/tax-status.repository';

/**
 * The tax service's status and settings events, kept as the agency's tax status projection: the
 * affiliate list reads each item's tax_status from it in its page statement, without calling the
 * tax service. Each event is applied once (processed_events) and in the tax service's order of
 * each user's changes (its version), whatever order it arrives in.
 */
export const taxStatuses = defineConsumer<AgencyDatabase, 'tax.tax_status.changed' | 'tax.tax_statuses.published' | 'tax.tax_settings.changed'>({
  name: 'agency-tax-statuses',
  eventTypes: ['tax.tax_status.changed', 'tax.tax_statuses.published', 'tax.tax_settings.changed'],
  handle: async (trx, event) => {
    switch (event.type) {
      case 'tax.tax_status.changed': {
        const { payload } = event;
        await applyTaxStatuses(trx, event.projectId, [
          {
            identifier: payload.user.identifier,
            identifierType: payload.user.identifier_type,
            status: payload.to,
            expiresAt: payload.expires_at ? new Date(payload.expires_at) : null,
            version: payload.version === undefined ? null : BigInt(payload.version),
          },
        ]);
        return;
      }
      case 'tax.tax_statuses.published':
        await applyTaxStatuses(
          trx,
          event.projectId,
          event.payload.records.map((record) => ({
            identifier: record.user.identifier,
            identifierType: record.user.identifier_type,
            status: record.status,
            expiresAt: record.expires_at === null ? null : new Date(record.expires_at),
            version: BigInt(record.version),
          })),
        );
        return;
      case 'tax.tax_settings.changed':
        await applyTaxRequirement(trx, event.projectId, event.payload.require_tax_info, BigInt(event.payload.version));
        return;
    }
  },
});
