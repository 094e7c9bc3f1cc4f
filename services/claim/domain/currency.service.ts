import type { Clock } from '../../platform/clock';
import { AlreadyExistsError, type FieldViolation, invalidFields } from '../../rules/errors';
import type { Page } from '../../rules/pagination';
import { checkText } from '../../rules/text-fields';
import { type CurrencyRecord, type CurrencyRepository, CurrencyTaken } from '../repositories/currency.repository';
import { requireProjectId } from './project';
import { CURRENCY_TYPES, type CurrencyType } from './vocabulary';

/** The address of a chain's native coin (Fuul v2 pays native currency as 0x0…0). */
export const NATIVE_ADDRESS = '0x0000000000000000000000000000000000000000';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const MAX_CHAIN_ID = 2n ** 63n - 1n;
/** NUMERIC(78,0) holds 78 digits: a currency with more decimals could not hold one whole unit. */
export const MAX_DECIMALS = 77;
export const MAX_CURRENCY_NAME_LENGTH = 100;

export interface CurrencyInput {
  chainId: string;
  address: string;
  name: string;
  decimals: number;
  type: CurrencyType | undefined;
}

/** The currencies a project pays in: each (chain, address) once. */
export class CurrencyService {
  constructor(
    private readonly currencies: CurrencyRepository,
    private readonly clock: Clock,
  ) {}

  async create(projectId: string, input: CurrencyInput): Promise<CurrencyRecord> {
    requireProjectId(projectId);
    const violations: FieldViolation[] = [];
    const chainId = /^[1-9][0-9]{0,18}$/.test(input.chainId) ? BigInt(input.chainId) : undefined;
    if (chainId === undefined || chainId > MAX_CHAIN_ID) violations.push({ field: 'chain_id', reason: 'must be a positive chain id' });
    const name = checkText(input.name, 'name', MAX_CURRENCY_NAME_LENGTH);
    violations.push(...name.violations);
    if (!Number.isInteger(input.decimals) || input.decimals < 0 || input.decimals > MAX_DECIMALS) {
      violations.push({ field: 'decimals', reason: `must be a whole number from 0 to ${MAX_DECIMALS}` });
    }
    if (input.type === undefined) violations.push({ field: 'type', reason: `is required: one of ${CURRENCY_TYPES.join(', ')}` });
    const address = ADDRESS.test(input.address) ? input.address.toLowerCase() : undefined;
    if (address === undefined) violations.push({ field: 'address', reason: 'must be 0x followed by 40 hex digits' });
    else if (input.type === 'native' && address !== NATIVE_ADDRESS)
      violations.push({ field: 'address', reason: `a native currency's address is ${NATIVE_ADDRESS}` });
    else if (input.type === 'erc20' && address === NATIVE_ADDRESS)
      violations.push({ field: 'address', reason: "an erc20 currency's address is its token contract, not the zero address" });
    if (violations.length > 0) throw invalidFields(violations);
    try {
      return await this.currencies.insert({
        projectId,
        chainId: chainId!,
        address: address!,
        name: name.value,
        decimals: input.decimals,
        type: input.type!,
        now: this.clock.now(),
      });
    } catch (error) {
      if (error instanceof CurrencyTaken) {
        throw new AlreadyExistsError('CURRENCY_EXISTS', `the project already has a currency at ${address} on chain ${chainId}`);
      }
      throw error;
    }
  }

  list(projectId: string, page: Page): Promise<{ records: CurrencyRecord[]; total: number }> {
    return this.currencies.list(requireProjectId(projectId), page);
  }
}
