import { EffectiveTaxStatus } from '../../../gen/referral/tax/v1/enums';
import type { TaxServiceClient } from '../../../gen/referral/tax/v1/tax';
import { enumName } from '../../rules/enums';
import { UnavailableError } from '../../rules/errors';
import type { GrpcClient } from '../../platform/grpc/client';
import type { UserIdentifier } from '../../rules/identifiers';
import type { EffectiveTaxStatus as EffectiveTaxStatusName, TaxStatusSource } from '../domain/tax-gate';

type TaxCalls = GrpcClient<TaxServiceClient>['call'];

/**
 * The tax service as the tax gate's source of effective statuses (BatchGetTaxStatuses), over the
 * client outbound-clients.ts builds with the configured deadline; a batch of statuses is one query there.
 */
export class TaxStatusClient implements TaxStatusSource {
  constructor(private readonly tax: TaxCalls) {}

  async statuses(projectId: string, users: readonly UserIdentifier[]): Promise<EffectiveTaxStatusName[]> {
    let results;
    try {
      ({ results } = await this.tax.batchGetTaxStatuses({ projectId, users: [...users] }));
    } catch {
      // Never shown unrestricted, never signed, when the gate cannot be read: the caller retries.
      throw new UnavailableError(
        'TAX_SERVICE_UNAVAILABLE',
        'the tax service did not answer, and claim checks are not shown or closed without the tax gate: nothing was closed; retry shortly',
      );
    }
    if (results.length !== users.length) throw new Error(`the tax service answered ${results.length} of ${users.length} statuses`);
    return results.map(({ status }) => {
      const name = enumName(EffectiveTaxStatus, status);
      if (name === undefined) throw new Error(`the tax service answered an unknown effective status (${status})`);
      return name;
    });
  }
}
