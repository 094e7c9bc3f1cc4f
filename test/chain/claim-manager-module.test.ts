import { readFileSync } from 'node:fs';
import { CONTRACT_MODULE_FILE, renderContractModule } from '../../scripts/write-contract-module';

/**
 * contracts/generated/claim-manager.ts is the one copy of ClaimManager's ABI and of the ClaimCheck
 * struct that the service, the portal and the tests import: it must be what the contract compiles to.
 */
describe('contracts/generated/claim-manager.ts', () => {
  it('is what scripts/write-contract-module.ts renders from the compiled contract today (else: npm run contracts:generate)', async () => {
    expect(readFileSync(CONTRACT_MODULE_FILE, 'utf8')).toBe(await renderContractModule());
  });
});
