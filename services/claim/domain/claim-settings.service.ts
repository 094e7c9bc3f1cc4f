import type { Clock } from '../../platform/clock';
import { invalidFields, NotFoundError } from '../../rules/errors';
import type { ClaimSettingsRecord, ClaimSettingsRepository } from '../repositories/claim-settings.repository';
import { requireProjectId } from './project';
import { NATIVE_CURRENCY } from './voucher';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * The project's address on chain: the account its deposits are held under in the ClaimManager,
 * and the `projectAddress` every voucher of the project names. A voucher already signed keeps the
 * address it was signed with; a change applies to checks closed after it.
 */
export class ClaimSettingsService {
  constructor(
    private readonly settings: ClaimSettingsRepository,
    private readonly clock: Clock,
  ) {}

  async get(projectId: string): Promise<ClaimSettingsRecord> {
    const record = await this.settings.get(requireProjectId(projectId));
    if (!record) throw new NotFoundError('CLAIM_SETTINGS_NOT_FOUND', 'the project has no claim settings yet: set its project_address first');
    return record;
  }

  async put(projectId: string, projectAddress: string): Promise<ClaimSettingsRecord> {
    requireProjectId(projectId);
    if (!ADDRESS.test(projectAddress)) throw invalidFields([{ field: 'project_address', reason: 'must be 0x followed by 40 hex digits' }]);
    const address = projectAddress.toLowerCase();
    if (address === NATIVE_CURRENCY) throw invalidFields([{ field: 'project_address', reason: 'must not be the zero address' }]);
    return this.settings.put(projectId, address, this.clock.now());
  }
}
