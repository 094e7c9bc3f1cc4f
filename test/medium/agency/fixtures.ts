import { randomUUID } from 'node:crypto';
import type { AgencyHarness } from '../../helpers/agency-domain';
import { randomEvmAddress } from '../../helpers/evm-addresses';

export type { AgencyHarness };

/** A project id of its own per test: projects live in the gateway's schema, the agency only names them. */
export const newProject = (): string => randomUUID();

export function newUser(): { identifier: string; identifierType: 'evm_address' } {
  return { identifier: randomEvmAddress(), identifierType: 'evm_address' };
}

let codes = 0;
/** A fresh valid code. */
export function newCode(prefix = 'code'): string {
  codes += 1;
  return `${prefix}_${codes}_${Math.random().toString(36).slice(2, 8)}`;
}

/** An affiliate with one code; answers the user and the code. */
export async function newAffiliate(harness: AgencyHarness, projectId: string, name = 'Alice') {
  const user = newUser();
  const code = newCode();
  const affiliate = await harness.domain.affiliates.create(projectId, user, { name, code });
  return { user, code, affiliate };
}
