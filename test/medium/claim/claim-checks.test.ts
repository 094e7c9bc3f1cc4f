import type { Hex } from 'viem' with { 'resolution-mode': 'import' };
import { VoucherSigner } from '../../../services/claim/chain/voucher-signer';
import { ChainDirectory } from '../../../services/claim/domain/chains';
import { claimCheckTypedData } from '../../../services/claim/domain/voucher';
import { type ClaimHarness, startClaimDomain } from '../../helpers/claim-domain';
import { randomEvmAddress } from '../../helpers/evm-addresses';
import {
  approveTaxForm,
  claimProject,
  openCheck,
  PROJECT_ADDRESS,
  reconciliation,
  referredPair,
  requireTaxInfo,
  submitTaxForm,
  trade,
  unbalanced,
} from './claim-check-fixtures';
import { newUser, pay } from './fixtures';

const viem = () => import('viem');

const KEYS: Hex[] = [`0x${'5a'.repeat(32)}`, `0x${'6b'.repeat(32)}`];
const MANAGER = '0x0000000000000000000000000000000000c1a1e5';
const TTL = 3_600;
const page = { page: 1, pageSize: 25, offset: 0 };

/**
 * Claim checks on the domain, with fakes of the tax and agency services: listing, closing into signed
 * vouchers (once per check, however often and however concurrently it is asked), what is
 * claimable, totals, and the tax gate of specification §8.1.
 */
describe('claim checks (domain)', () => {
  let harness: ClaimHarness;
  let signer: VoucherSigner;
  beforeAll(async () => {
    signer = await VoucherSigner.fromPrivateKeys(KEYS);
    harness = await startClaimDomain({
      checks: {
        signer,
        ttlSeconds: TTL,
        chains: new ChainDirectory(
          [{ chainId: 8453, rpcUrl: 'http://127.0.0.1:1', claimManager: MANAGER, confirmations: 2, startBlock: undefined }],
          'Referral ClaimManager',
          '1',
        ),
      },
    });
  });
  afterAll(() => harness.stop());
  afterEach(() => harness.clock.set('2026-11-21T12:00:00.000Z'));

  const checks = () => harness.domain.claimChecks;

  it('signs an open check into a voucher of the Fuul v2 struct, under the chain’s domain, that recovers to every signer', async () => {
    const { projectId, currency } = await claimProject(harness);
    const user = newUser();
    await pay(harness, projectId, [trade(user, 10_000), trade(user, 20_000)]);
    const check = await openCheck(harness, projectId, user, 'end_user');
    expect(check.amount).toBe(300n);

    const [row] = await checks().close(projectId, user, [check.id]);
    const deadline = BigInt(Math.floor(harness.clock.now().getTime() / 1000) + TTL);
    expect(row).toEqual({
      claimCheckId: check.id,
      chainId: 8453n,
      projectAddress: PROJECT_ADDRESS,
      to: user.identifier,
      currency: currency.address,
      currencyType: 1,
      amount: 300n,
      reason: 1,
      tokenId: 0n,
      signed: { deadline, proof: expect.stringMatching(/^0x[0-9a-f]{64}$/), signatures: [expect.any(String), expect.any(String)] },
      restriction: null,
      // The contract the voucher was signed for: where the wallet sends claim([...]).
      claimManager: MANAGER,
    });
    const { recoverTypedDataAddress } = await viem();
    const domain = { name: 'Referral ClaimManager', version: '1', chainId: 8453, verifyingContract: MANAGER as Hex };
    const message = {
      projectAddress: PROJECT_ADDRESS as Hex,
      to: user.identifier as Hex,
      currency: currency.address as Hex,
      currencyType: 1 as const,
      amount: 300n,
      reason: 1 as const,
      tokenId: 0n,
      deadline,
      proof: row!.signed!.proof as Hex,
    };
    const recovered = await Promise.all(
      row!.signed!.signatures.map((signature) => recoverTypedDataAddress({ ...claimCheckTypedData(domain, message), signature: signature as Hex })),
    );
    expect(recovered).toEqual(signer.addresses);

    const listed = await checks().list(projectId, user, undefined, page);
    expect(listed.records).toEqual([expect.objectContaining({ id: check.id, status: 'closed', amount: 300n, deadline, restriction: null })]);
  });

  it('answers the same voucher for a closed check, and new movements go to a new open check', async () => {
    const { projectId } = await claimProject(harness);
    const user = newUser();
    await pay(harness, projectId, [trade(user, 10_000)]);
    const check = await openCheck(harness, projectId, user, 'end_user');
    const first = await checks().close(projectId, user, [check.id]);
    harness.clock.advance(60_000);
    expect(await checks().close(projectId, user, [check.id, check.id.toUpperCase()])).toEqual(first);

    await pay(harness, projectId, [trade(user, 50_000)]);
    const next = await openCheck(harness, projectId, user, 'end_user');
    expect(next.id).not.toBe(check.id);
    expect(next.amount).toBe(500n);
    const listed = await checks().list(projectId, user, undefined, page);
    expect(listed.records.map((record) => [record.status, record.amount])).toEqual([
      ['open', 500n],
      ['closed', 100n],
    ]);
    expect((await checks().list(projectId, user, 'open', page)).records.map((record) => record.id)).toEqual([next.id]);
    // Pages: the count comes with a page, and without one past the end.
    expect(await checks().list(projectId, user, undefined, { page: 2, pageSize: 1, offset: 1 })).toEqual({
      records: [expect.objectContaining({ id: check.id })],
      total: 2,
    });
    expect(await checks().list(projectId, user, undefined, { page: 3, pageSize: 1, offset: 2 })).toEqual({ records: [], total: 2 });
    expect(unbalanced(await reconciliation(harness, projectId))).toEqual([]);
  });

  it('closes each check once when 1,000 closes of the same checks arrive at once: one voucher per check, every answer the same', async () => {
    const { projectId } = await claimProject(harness);
    const { affiliate, user } = referredPair(harness, projectId);
    await pay(harness, projectId, [trade(user, 10_000)]);
    // The affiliate's check and the user's: two users, so two sets of closes race, each for its own.
    const affiliateCheck = await openCheck(harness, projectId, affiliate, 'affiliate');
    const userCheck = await openCheck(harness, projectId, user, 'end_user');
    const answers = await Promise.all(
      Array.from({ length: 1_000 }, (_, i) =>
        i % 2 ? checks().close(projectId, affiliate, [affiliateCheck.id]) : checks().close(projectId, user, [userCheck.id]),
      ),
    );
    const proofs = (owner: number) => new Set(answers.filter((_, i) => i % 2 === owner).map((rows) => rows[0]!.signed!.proof));
    expect(proofs(0).size).toBe(1);
    expect(proofs(1).size).toBe(1);
    const { rows } = await harness.sql.query('SELECT claim_check_id, amount::text FROM claim.vouchers WHERE project_id = $1 ORDER BY amount', [
      projectId,
    ]);
    expect(rows).toEqual([
      { claim_check_id: userCheck.id, amount: '100' },
      { claim_check_id: affiliateCheck.id, amount: '1000' },
    ]);
  });

  it('signs the amount the check holds when it is locked, while payments keep coming in', async () => {
    const { projectId } = await claimProject(harness);
    const user = newUser();
    await pay(harness, projectId, [trade(user, 10_000)]);
    const check = await openCheck(harness, projectId, user, 'end_user');
    const payments = Array.from({ length: 20 }, () => pay(harness, projectId, [trade(user, 10_000)]));
    const [closed] = await Promise.all([checks().close(projectId, user, [check.id]), ...payments]);
    const { rows } = await harness.sql.query<{ amount: string; movements: string }>(
      'SELECT cc.amount::text, (SELECT sum(amount) FROM claim.movements m WHERE m.claim_check_id = cc.id)::text AS movements FROM claim.claim_checks cc WHERE cc.id = $1',
      [check.id],
    );
    expect(closed[0]!.amount).toBe(BigInt(rows[0]!.amount));
    expect(rows[0]!.movements).toBe(rows[0]!.amount);
    expect(unbalanced(await reconciliation(harness, projectId))).toEqual([]);
    const total = await checks().totals(projectId, user);
    expect(total.unclaimed.map((entry) => entry.amount)).toEqual([2_100n]);
  });

  it('refuses the whole request, closing nothing, for an unknown id, another user’s check or an expired one', async () => {
    const { projectId } = await claimProject(harness);
    const [user, other] = [newUser(), newUser()];
    await pay(harness, projectId, [trade(user, 10_000), trade(other, 10_000)]);
    const mine = await openCheck(harness, projectId, user, 'end_user');
    const theirs = await openCheck(harness, projectId, other, 'end_user');

    await expect(checks().close(projectId, user, [mine.id, theirs.id, 'not-a-uuid'])).rejects.toMatchObject({
      code: 'CLAIM_CHECK_NOT_FOUND',
      details: [
        { field: 'claim_check_ids[1]', reason: 'no claim check of this user has this id' },
        { field: 'claim_check_ids[2]', reason: 'no claim check of this user has this id' },
      ],
    });
    await expect(checks().close(projectId, user, [])).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(
      checks().close(
        projectId,
        user,
        Array.from({ length: 101 }, () => mine.id),
      ),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    // Another project's id space: the same check is not found there.
    const { projectId: elsewhere } = await claimProject(harness);
    await expect(checks().close(elsewhere, user, [mine.id])).rejects.toMatchObject({ code: 'CLAIM_CHECK_NOT_FOUND' });

    await harness.sql.query("UPDATE claim.claim_checks SET status = 'expired' WHERE id = $1", [theirs.id]);
    await expect(checks().close(projectId, other, [theirs.id])).rejects.toMatchObject({
      code: 'CLAIM_CHECK_EXPIRED',
      details: [{ field: 'claim_check_ids[0]' }],
    });
    expect((await harness.sql.query('SELECT count(*)::int AS n FROM claim.vouchers WHERE project_id = $1', [projectId])).rows[0].n).toBe(0);
  });

  it('refuses to sign without the project’s address, on a chain not configured, or for a user without an EVM address', async () => {
    const { projectId, currencyId } = await claimProject(harness);
    const user = newUser();
    await pay(harness, projectId, [trade(user, 10_000)]);
    const check = await openCheck(harness, projectId, user, 'end_user');
    await harness.sql.query('DELETE FROM claim.claim_settings WHERE project_id = $1', [projectId]);
    await expect(checks().close(projectId, user, [check.id])).rejects.toMatchObject({ code: 'CLAIM_SETTINGS_MISSING' });
    await harness.domain.claimSettings.put(projectId, PROJECT_ADDRESS);

    const { projectId: onMainnet } = await claimProject(harness, 1);
    await pay(harness, onMainnet, [trade(user, 10_000)]);
    const elsewhere = await openCheck(harness, onMainnet, user, 'end_user');
    await expect(checks().close(onMainnet, user, [elsewhere.id])).rejects.toMatchObject({
      code: 'CHAIN_NOT_CONFIGURED',
      message: expect.stringContaining('chain 1'),
    });

    const emailUser = { identifier: `ada+${Date.now()}@example.com`, identifierType: 'email' };
    await pay(harness, projectId, [trade(emailUser, 10_000)]);
    const emailCheck = await openCheck(harness, projectId, emailUser, 'end_user');
    await expect(checks().close(projectId, emailUser, [emailCheck.id])).rejects.toMatchObject({ code: 'CLAIM_NEEDS_EVM_ADDRESS' });
    const { rows } = await harness.sql.query('SELECT status FROM claim.claim_checks WHERE currency_id = $1 ORDER BY status', [currencyId]);
    expect(rows.map((row) => row.status)).toEqual(['open', 'open']);
  });

  it('lists only the claimable vouchers: closed, unredeemed and before their deadline', async () => {
    const { projectId } = await claimProject(harness);
    const user = newUser();
    await pay(harness, projectId, [trade(user, 10_000)]);
    const first = await openCheck(harness, projectId, user, 'end_user');
    await checks().close(projectId, user, [first.id]);
    harness.clock.advance(1_800_000);
    await pay(harness, projectId, [trade(user, 20_000)]);
    const second = await openCheck(harness, projectId, user, 'end_user');
    await checks().close(projectId, user, [second.id]);
    await pay(harness, projectId, [trade(user, 30_000)]);

    expect((await checks().claimable(projectId, user)).map((row) => row.claimCheckId)).toEqual([first.id, second.id]);
    // The first voucher's deadline passes: it is no longer offered (the watcher credits it back once the chain agrees).
    harness.clock.advance(1_800_000);
    expect((await checks().claimable(projectId, user)).map((row) => row.claimCheckId)).toEqual([second.id]);
    await harness.sql.query("UPDATE claim.claim_checks SET status = 'claimed' WHERE id = $1", [second.id]);
    expect(await checks().claimable(projectId, user)).toEqual([]);

    const totals = await checks().totals(projectId, user);
    expect(totals.claimed.map((entry) => entry.amount)).toEqual([200n]);
    expect(totals.unclaimed.map((entry) => entry.amount)).toEqual([400n]);
  });

  describe('the tax gate (specification §8.1)', () => {
    it('restricts an affiliate’s checks until its form is approved, never the end user’s, and again once the W-8 expires', async () => {
      const { projectId } = await claimProject(harness);
      requireTaxInfo(harness, projectId);
      const { affiliate, user } = referredPair(harness, projectId);
      await pay(harness, projectId, [trade(user, 10_000)]);
      const check = await openCheck(harness, projectId, affiliate, 'affiliate');
      const userCheck = await openCheck(harness, projectId, user, 'end_user');

      const listed = await checks().list(projectId, affiliate, undefined, page);
      expect(listed.records).toEqual([expect.objectContaining({ id: check.id, restriction: expect.stringContaining('submit your tax form') })]);
      const [restricted] = await checks().close(projectId, affiliate, [check.id]);
      expect(restricted).toMatchObject({
        claimCheckId: check.id,
        amount: 1_000n,
        reason: 0,
        signed: null,
        restriction: expect.stringContaining('submit'),
      });
      expect((await harness.sql.query('SELECT status FROM claim.claim_checks WHERE id = $1', [check.id])).rows[0].status).toBe('open');
      // The referred user earned as an end user only: never gated.
      expect((await checks().close(projectId, user, [userCheck.id]))[0]).toMatchObject({ restriction: null, signed: expect.any(Object) });

      submitTaxForm(harness, projectId, affiliate);
      expect((await checks().list(projectId, affiliate, undefined, page)).records[0]!.restriction).toContain('being reviewed');
      // A W-8 approved now, valid three years (when it expires is the tax service's rule: test/medium/tax/w8-expiry.test.ts).
      const expiresAt = new Date(harness.clock.now());
      expiresAt.setUTCFullYear(expiresAt.getUTCFullYear() + 3);
      approveTaxForm(harness, projectId, affiliate, expiresAt);
      const [signed] = await checks().close(projectId, affiliate, [check.id]);
      expect(signed).toMatchObject({ restriction: null, signed: { proof: expect.any(String) } });
      expect((await checks().claimable(projectId, affiliate)).map((row) => row.restriction)).toEqual([null]);

      // The gate asks the status at each request: a millisecond before expires_at the voucher is still given, from expires_at on it is withheld again, and new checks too.
      harness.clock.set(new Date(expiresAt.getTime() - 1));
      expect((await checks().close(projectId, affiliate, [check.id]))[0]).toMatchObject({ restriction: null, signed: { proof: expect.any(String) } });
      harness.clock.set(expiresAt);
      const again = await checks().close(projectId, affiliate, [check.id]);
      expect(again[0]).toMatchObject({ signed: null, restriction: expect.stringContaining('expired') });
      const listedAgain = await checks().list(projectId, affiliate, undefined, page);
      expect(listedAgain.records[0]).toMatchObject({ status: 'closed', restriction: expect.stringContaining('renewed tax form') });
    });

    it('gates agency payouts like affiliate payouts, and nothing in a project that does not require tax information', async () => {
      const { projectId } = await claimProject(harness);
      const { affiliate, user } = referredPair(harness, projectId);
      await pay(harness, projectId, [trade(user, 10_000)]);
      const check = await openCheck(harness, projectId, affiliate, 'affiliate');
      // Not required: signed straight away.
      expect((await checks().close(projectId, affiliate, [check.id]))[0]!.restriction).toBeNull();

      const gated = await claimProject(harness);
      requireTaxInfo(harness, gated.projectId);
      const master = randomEvmAddress();
      // An agency check, written as the ledger would (the agency half pays it: test/medium/claim/payments.test.ts).
      await harness.sql.query(
        `INSERT INTO claim.claim_checks (project_id, identifier_type, identifier, currency_id, reason, status, amount, movements_count, created_at, updated_at)
         VALUES ($1, 'evm_address', $2, $3, 'agency', 'open', 7, 0, now(), now())`,
        [gated.projectId, master, gated.currencyId],
      );
      const listed = await checks().list(gated.projectId, { identifier: master, identifierType: 'evm_address' }, undefined, page);
      expect(listed.records[0]).toMatchObject({ reason: 'agency', restriction: expect.stringContaining('submit your tax form') });
    });
  });
});
