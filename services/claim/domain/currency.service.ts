import type { Clock } from '../../platform/clock';
import { AlreadyExistsError, type FieldViolation, invalidFields } from '../../rules/errors';
import type { Page } from '../../rules/pagination';
import { checkText } from '../../rules/text-fields';
import { type CurrencyRecord, type CurrencyRepository, CurrencyTaken, PointCurrencyTaken } from '../repositories/currency.repository';
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
  /** Left out (undefined) for a point currency, and only then. */
  chainId: string | undefined;
  address: string | undefined;
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
    const name = checkText(input.name, 'name', MAX_CURRENCY_NAME_LENGTH);
    violations.push(...name.violations);
    if (input.type === undefined) violations.push({ field: 'type', reason: `is required: one of ${CURRENCY_TYPES.join(', ')}` });
    const place = input.type === 'point' ? pointPlace(input, violations) : chainPlace(input, violations);
    if (violations.length > 0) throw invalidFields(violations);
    try {
      return await this.currencies.insert({
        projectId,
        chainId: place.chainId,
        address: place.address,
        name: name.value,
        decimals: input.decimals,
        type: input.type!,
        now: this.clock.now(),
      });
    } catch (error) {
      if (error instanceof CurrencyTaken) {
        throw new AlreadyExistsError('CURRENCY_EXISTS', `the project already has a currency at ${place.address} on chain ${place.chainId}`);
      }
      if (error instanceof PointCurrencyTaken) {
        throw new AlreadyExistsError('POINT_CURRENCY_EXISTS', 'the project already has its point currency (one per project)');
      }
      throw error;
    }
  }

  list(projectId: string, page: Page): Promise<{ records: CurrencyRecord[]; total: number }> {
    return this.currencies.list(requireProjectId(projectId), page);
  }
}

/**
 * A chain currency's place: a positive chain id and a 0x address (the zero address exactly when
 * native), and decimals 0 to MAX_DECIMALS.
 */
function chainPlace(input: CurrencyInput, violations: FieldViolation[]): { chainId: bigint; address: string } {
  const chainId = input.chainId !== undefined && /^[1-9][0-9]{0,18}$/.test(input.chainId) ? BigInt(input.chainId) : undefined;
  if (chainId === undefined || chainId > MAX_CHAIN_ID) violations.push({ field: 'chain_id', reason: 'must be a positive chain id' });
  if (!Number.isInteger(input.decimals) || input.decimals < 0 || input.decimals > MAX_DECIMALS) {
    violations.push({ field: 'decimals', reason: `must be a whole number from 0 to ${MAX_DECIMALS}` });
  }
  const address = input.address !== undefined && ADDRESS.test(input.address) ? input.address.toLowerCase() : undefined;
  if (address === undefined) violations.push({ field: 'address', reason: 'must be 0x followed by 40 hex digits' });
  else if (input.type === 'native' && address !== NATIVE_ADDRESS)
    violations.push({ field: 'address', reason: `a native currency's address is ${NATIVE_ADDRESS}` });
  else if (input.type === 'erc20' && address === NATIVE_ADDRESS)
    violations.push({ field: 'address', reason: "an erc20 currency's address is its token contract, not the zero address" });
  return { chainId: chainId!, address: address! };
}

/**
 * Points live on no chain and are counted in whole units: a chain id or an address given is refused
 * (not ignored: the caller meant a chain currency), and decimals must be 0 (refused otherwise, never
 * silently changed, so what the caller reads back is what it sent).
 */
function pointPlace(input: CurrencyInput, violations: FieldViolation[]): { chainId: null; address: null } {
  if (input.chainId !== undefined) violations.push({ field: 'chain_id', reason: 'a point currency has no chain: leave chain_id out' });
  if (input.address !== undefined) violations.push({ field: 'address', reason: 'a point currency has no address: leave address out' });
  if (input.decimals !== 0) violations.push({ field: 'decimals', reason: 'a point currency counts whole points: decimals must be 0' });
  return { chainId: null, address: null };
}
