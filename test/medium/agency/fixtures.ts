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

type AffiliateList = AgencyHarness['domain']['affiliates']['list'];

/**
 * Every page of the project's affiliate list (`pageSize` a page, read up to the first empty page),
 * each no longer than `pageSize`: the ids in the order the pages laid them, and every total they answered.
 */
export async function everyAffiliatePage(
  harness: AgencyHarness,
  projectId: string,
  filters: Parameters<AffiliateList>[1],
  sort: NonNullable<Parameters<AffiliateList>[3]>,
  pageSize: number,
): Promise<{ ids: string[]; totals: number[] }> {
  const ids: string[] = [];
  const totals = new Set<number>();
  for (let page = 1; page <= 1_000; page++) {
    const { records, total } = await harness.domain.affiliates.list(projectId, filters, { page, pageSize, offset: (page - 1) * pageSize }, sort);
    totals.add(total);
    if (records.length === 0) return { ids, totals: [...totals] };
    expect(records.length).toBeLessThanOrEqual(pageSize);
    ids.push(...records.map((record) => record.id));
  }
  throw new Error('the affiliate list did not end within 1,000 pages');
}
