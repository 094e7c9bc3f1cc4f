import { FieldCipher, parseKeyRing } from '../../services/platform/crypto/field-cipher';
import { SERVICE_CATALOG } from '../../services/platform/service-catalog';
import { buildTaxDomain, type TaxDomain } from '../../services/tax/composition';
import type { TaxDatabase } from '../../services/tax/database';
import { TinVault } from '../../services/tax/domain/tin-vault';
import { TestClock } from './clock';
import { type DomainHarness, type HarnessOptions, openServiceDatabase } from './domain';
import { LogCapture } from './log-capture';
import { TEST_TAX_KEYS } from './tax-keys';

/** A vault sealing tax ids with the test key ring (the same as the HTTP tests' stack). */
export function testTinVault(): TinVault {
  const ring = parseKeyRing(TEST_TAX_KEYS.spec);
  if ('problem' in ring) throw new Error(`the test key ring is invalid: ${ring.problem}`);
  return new TinVault(new FieldCipher(ring.keys, TEST_TAX_KEYS.active));
}

/** The tax domain, sealing tax ids with the test key ring (the same as the HTTP tests' stack). */
export async function startTaxDomain(options: HarnessOptions = {}): Promise<DomainHarness<TaxDomain, TaxDatabase> & { vault: TinVault }> {
  const clock = options.clock ?? new TestClock();
  const logs = new LogCapture();
  const database = await openServiceDatabase<TaxDatabase>(SERVICE_CATALOG.tax.schema, logs);
  const vault = testTinVault();
  const domain = buildTaxDomain({ db: database.db, clock, logger: logs.logger('tax'), vault });
  return { domain, vault, db: database.db, sql: database.sql, databaseUrl: database.url, clock, logs, stop: database.close };
}
