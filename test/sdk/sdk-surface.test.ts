import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Fuul, UserIdentifierType } from '@fuul/sdk';
import {
  README_FILE,
  readmeSdkTable,
  renderSdkTable,
  RESULTS_FILE,
  type SdkMethodResult,
  type SdkSurfaceResults,
} from '../../scripts/sdk-table/render';
import { type ClaimChain, claimProject, type ClaimProject, startClaimStack } from '../claim/claim-check-stack';
import { conversionBody, evmUser, putTerms, settled } from '../claim/claim-fixtures';
import { creationMessage, FakeBrowser, rebateMessage, updateMessage } from '../helpers/fuul-sdk';
import { GatewayRequests } from '../helpers/gateway-requests';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';
import { newWallet, type TestWallet } from '../helpers/wallet';
import { describeRequest, verdict } from './sdk-verdict';

const EVM = UserIdentifierType.EvmAddress;
const APP = 'https://app.example.com/';
type Sdk = typeof Fuul;
type Method = keyof Sdk;

/** One method driven once: the call, and what its answer must hold to count as working (typed by the SDK's own types). */
interface Step {
  method: Method;
  call: () => Promise<unknown>;
  shape?: (answer: unknown) => void;
}

function step<T>(definition: { method: Method; call: () => Promise<T>; shape?: (answer: Awaited<T>) => void }): Step {
  return definition as Step;
}

/** The installed SDK's version (its package.json is not among its exports). */
const SDK_VERSION = (JSON.parse(readFileSync(path.resolve(__dirname, '../../node_modules/@fuul/sdk/package.json'), 'utf8')) as { version: string })
  .version;

/**
 * Issue 25 §5: every method of the published @fuul/sdk, driven once with valid input against the
 * running stack on one seeded project, and for each the requests the gateway saw (its own route
 * patterns, read from Node's HTTP diagnostics channel: nothing here writes a path) and whether it
 * works: every request 2xx and the answer of the SDK's shape, or why not (the status and error code,
 * e.g. 404 NOT_OFFERED for Fuul's own bonus programs). The README's table is rendered from that
 * record and must equal it; `npm run sdk:table` rewrites it from the results this file leaves in
 * test-artifacts/. The page's methods (sendPageview, identifyUser, sendEvent) run in a second instance
 * of the SDK with the tracking key it embeds, in the FakeBrowser; every other one in the server's.
 */
describe('every method of the @fuul/sdk against the running stack', () => {
  let stack: TestStack;
  let claimChain: ClaimChain;
  let project: ClaimProject;
  let page: Sdk;
  let requests: GatewayRequests;
  const browser = new FakeBrowser();
  const results: SdkMethodResult[] = [];
  let recorded: SdkSurfaceResults | undefined;

  let affiliate: TestWallet;
  let visitor: TestWallet;
  let invitee: TestWallet;
  const trader = evmUser();
  const firstCode = `Surface${Date.now().toString(36)}`;
  const newCode = `${firstCode}New`;
  let invite: string;
  let openChecks: string[] = [];

  beforeAll(async () => {
    ({ stack, claimChain } = await startClaimStack());
    project = await claimProject(stack, claimChain);
    // `quest` pays points (XP): 40 to the user, 25 to its affiliate, so the three points methods answer real rows.
    const xp = await stack.api.post(`/api/v1/projects/${project.id}/currencies`, {
      key: project.keys.admin,
      body: { name: 'XP', decimals: 0, type: 'point' },
    });
    expect(xp.status).toBe(201);
    await putTerms(stack, project, 'quest', { currency_id: xp.body.id, end_user: { fixed: '40' }, affiliate: { fixed: '25' } });
    requests = new GatewayRequests(Number(new URL(stack.baseUrl).port));
    browser.install();
    await jest.isolateModulesAsync(async () => {
      page = (await import('@fuul/sdk')).Fuul;
    });
    page.init({ apiKey: project.keys.tracking, baseApiUrl: `${stack.baseUrl}/api/v1/` });
    [affiliate, visitor, invitee] = await Promise.all([newWallet(), newWallet(), newWallet()]);
  });
  afterAll(async () => {
    requests?.close();
    browser.uninstall();
    await stack?.stop();
    await claimChain?.chain.stop();
  });

  /** Drives one method and records what the gateway saw and whether it worked. */
  async function drive({ method, call, shape }: Step): Promise<void> {
    const { outcome, requests: seen } = await requests.during(call);
    results.push({ method, requests: [...new Set(seen.map(describeRequest))], ...verdict(outcome, seen, shape) });
  }

  /**
   * What the reads below find: the visitor's referral (identifyUser's event, applied in the
   * background) and the money: the trader, referred by the affiliate's new code, converts once
   * (1% to it, 10% to the affiliate), then completes a `quest` (40 XP to it, 25 XP to the affiliate),
   * and the agency's projection counts both.
   */
  async function settle(): Promise<void> {
    await pollUntil(
      async () =>
        (
          await stack.api.get(`/api/v1/user/referrer?user_identifier=${visitor.address}&user_identifier_type=evm_address`, {
            key: project.keys.service,
          })
        ).body.referrer_identifier === affiliate.address,
      { timeoutMs: 15_000, what: 'the visitor referred by its identifyUser event' },
    );
    const trade = conversionBody({ user: trader, referral_code: newCode, volume_usd: '100.5', revenue_usd: '1.25', reward_base: '1000000' });
    const quest = conversionBody({ name: 'quest', user: trader, reward_base: '1' });
    for (const body of [trade, quest]) {
      const sent = await stack.api.post('/api/v1/conversions', { key: project.keys.service, body });
      expect(sent.status).toBe(202);
      await settled(stack, project, body.id);
    }
    await pollUntil(
      async () =>
        (await stack.api.get(`/api/v1/projects/${project.id}/affiliates?page_size=10`, { key: project.keys.admin })).body.results?.[0]
          ?.conversions === 2,
      { timeoutMs: 15_000, what: 'the agency’s projection to count both conversions' },
    );
  }

  const who = () => ({ user_identifier: trader.identifier, user_identifier_type: EVM });
  const range = { from: '2026-11-21', to: '2026-11-21' };
  const list = (answer: { results: unknown[]; total_results: number }) => {
    expect(answer).toMatchObject({ page: 1, page_size: expect.any(Number), total_results: expect.any(Number) });
    expect(answer.results).toEqual(expect.any(Array));
  };
  const board = (answer: { results: unknown[]; total_results: number; calculated_at: string }) => {
    list(answer);
    expect(answer.calculated_at).toEqual(expect.any(String));
  };

  /** In the order they can run: codes before the links to them, the money before its reads, checks before closing them. */
  const steps = (): Step[] => [
    step({ method: 'init', call: async () => Fuul.init({ apiKey: project.keys.service, baseApiUrl: `${stack.baseUrl}/api/v1/` }) }),
    step({ method: 'isAffiliateCodeFree', call: () => Fuul.isAffiliateCodeFree(firstCode), shape: (free) => expect(free).toBe(true) }),
    step({ method: 'isAffiliateCodeAvailable', call: () => Fuul.isAffiliateCodeAvailable(firstCode), shape: (used) => expect(used).toBe(false) }),
    step({
      method: 'createAffiliateCode',
      call: async () =>
        Fuul.createAffiliateCode({
          userIdentifier: affiliate.checksumAddress,
          identifierType: EVM,
          code: firstCode,
          signature: await affiliate.sign(creationMessage(firstCode)),
        }),
      shape: (created) => expect(created).toMatchObject({ code: firstCode, user_identifier: affiliate.address }),
    }),
    step({
      method: 'updateAffiliateCode',
      call: async () =>
        Fuul.updateAffiliateCode({
          userIdentifier: affiliate.checksumAddress,
          identifierType: EVM,
          code: newCode,
          signature: await affiliate.sign(updateMessage(newCode)),
        }),
    }),
    step({
      method: 'updateRebateRate',
      call: async () =>
        Fuul.updateRebateRate({
          userIdentifier: affiliate.checksumAddress,
          identifierType: EVM,
          code: firstCode,
          rebateRate: 0.15,
          signature: await affiliate.sign(rebateMessage(firstCode, 0.15)),
        }),
    }),
    step({
      method: 'getAffiliateCode',
      call: () => Fuul.getAffiliateCode(affiliate.checksumAddress, EVM),
      shape: (info) =>
        expect(info!.codes.map(({ code, rebate_rate }) => [code, rebate_rate])).toEqual([
          [firstCode, 0.15],
          [newCode, null],
        ]),
    }),
    step({
      method: 'getAffiliateInfo',
      call: () => Fuul.getAffiliateInfo(affiliate.checksumAddress, EVM),
      shape: (info) => expect(info).toMatchObject({ user_identifier: affiliate.address, code: firstCode }),
    }),
    step({
      method: 'generateTrackingLink',
      call: () => Fuul.generateTrackingLink(APP, affiliate.checksumAddress, EVM),
      shape: (link) => expect(link).toBe(`${APP}?af=${firstCode}`),
    }),
    step({
      method: 'sendPageview',
      call: async () => {
        browser.visit(`${APP}?af=${firstCode}`);
        return page.sendPageview();
      },
    }),
    step({
      method: 'identifyUser',
      call: async () => {
        const message = `Connect ${visitor.checksumAddress} to Example`;
        return page.identifyUser({ identifier: visitor.checksumAddress, identifierType: EVM, signature: await visitor.sign(message), message });
      },
    }),
    step({ method: 'sendEvent', call: () => page.sendEvent('deposit', { dedup_id: `deposit-${browser.trackingId}`, amount: '10' }) }),
    step({
      method: 'generateReferralCodes',
      call: () => Fuul.generateReferralCodes({ user_identifier: affiliate.address, user_identifier_type: EVM, quantity: 1, max_uses: 1 }),
      shape: (generated) => {
        expect(generated).toEqual([expect.objectContaining({ code: expect.any(String) })]);
        invite = generated[0]!.code;
      },
    }),
    step({
      method: 'listUserReferralCodes',
      call: () => Fuul.listUserReferralCodes({ user_identifier: affiliate.address, user_identifier_type: EVM }),
      shape: (listed) => expect(listed).toMatchObject({ count: 1, results: [{ code: invite, max_uses: 1 }] }),
    }),
    step({
      method: 'getReferralCode',
      call: () => Fuul.getReferralCode({ code: invite }),
      shape: (answer) => expect(answer).toEqual({ available: true }),
    }),
    step({
      method: 'useReferralCode',
      call: async () => {
        const message = `I am using referral code ${invite}`;
        return Fuul.useReferralCode({
          code: invite,
          user_identifier: invitee.checksumAddress,
          user_identifier_type: EVM,
          signature: await invitee.sign(message),
          signature_message: message,
        });
      },
    }),
    step({
      method: 'getReferralStatus',
      call: () => Fuul.getReferralStatus({ user_identifier: invitee.address, user_identifier_type: EVM }),
      shape: (status) => expect(status).toMatchObject({ referred: true, code: invite, referrer_identifier: affiliate.address }),
    }),
    step({ method: 'updateReferralCode', call: () => Fuul.updateReferralCode({ code: invite, max_uses: 2 }) }),
    step({
      method: 'getUserReferrer',
      call: () => Fuul.getUserReferrer({ user_identifier: invitee.address, user_identifier_type: EVM }),
      shape: (answer) => expect(answer).toMatchObject({ user_identifier: invitee.address, referrer_identifier: affiliate.address }),
    }),
    step({
      method: 'deleteReferral',
      call: async () => {
        const message = `I am deleting referral for user ${invitee.address} from code ${invite}`;
        return Fuul.deleteReferral({
          code: invite,
          user_identifier: invitee.checksumAddress,
          user_identifier_type: EVM,
          referrer_identifier: affiliate.checksumAddress,
          referrer_identifier_type: EVM,
          signature: await invitee.sign(message),
          signature_message: message,
        });
      },
    }),
    // From here on the visitor is referred and the trader's conversion paid (settle() runs before these).
    step({
      method: 'getUserAudiences',
      call: () => Fuul.getUserAudiences(who()),
      shape: (answer) => expect(answer.results).toEqual([]),
    }),
    step({
      method: 'getConversions',
      call: () => Fuul.getConversions({ user_identifier: trader.identifier, identifier_type: EVM }),
      shape: (conversions) =>
        expect(conversions).toEqual([
          expect.objectContaining({ name: 'quest', payout_terms: [expect.any(Object)] }),
          expect.objectContaining({ name: 'trade', payout_terms: [expect.any(Object)] }),
        ]),
    }),
    step({
      method: 'getIncentives',
      call: () => Fuul.getIncentives(),
      shape: (conversions) => expect(conversions.map(({ name }) => name)).toEqual(['quest', 'trade']),
    }),
    step({
      method: 'getIncentivesByTier',
      call: () => Fuul.getIncentivesByTier(),
      shape: (answer) =>
        expect(answer.tiers).toEqual([
          expect.objectContaining({
            tier_id: null,
            payout_terms: [expect.objectContaining({ conversion_name: 'quest' }), expect.objectContaining({ conversion_name: 'trade' })],
          }),
        ]),
    }),
    step({
      method: 'getPayoutsLeaderboard',
      call: () => Fuul.getPayoutsLeaderboard({ user_type: 'end_user', ...range }),
      shape: (answer) => {
        board(answer);
        expect(answer.results).toEqual([expect.objectContaining({ rank: 1, user_identifier: trader.identifier, total_amount: 0.01 })]);
      },
    }),
    step({
      method: 'getPointsLeaderboard',
      call: () => Fuul.getPointsLeaderboard({}),
      shape: (answer) => {
        board(answer);
        expect(answer.results).toEqual([expect.objectContaining({ rank: 1, address: affiliate.address, total_amount: 25, total_attributions: 1 })]);
      },
    }),
    step({
      method: 'getVolumeLeaderboard',
      call: () => Fuul.getVolumeLeaderboard({ user_type: 'affiliate' }),
      shape: (answer) => {
        board(answer);
        expect(answer.results).toEqual([expect.objectContaining({ rank: 1, user_identifier: affiliate.address, total_amount: '100.5' })]);
      },
    }),
    step({
      method: 'getRevenueLeaderboard',
      call: () => Fuul.getRevenueLeaderboard({ user_type: 'affiliate' }),
      shape: (answer) => {
        board(answer);
        expect(answer.results).toEqual([expect.objectContaining({ rank: 1, address: affiliate.address, total_amount: '1.25' })]);
      },
    }),
    step({
      method: 'getReferredUsersLeaderboard',
      call: () => Fuul.getReferredUsersLeaderboard({}),
      shape: (answer) => {
        list(answer);
        expect(answer.results).toEqual([expect.objectContaining({ rank: 1, address: affiliate.address, total_referred_users: 2 })]);
      },
    }),
    step({
      method: 'getReferredVolume',
      call: () => Fuul.getReferredVolume({ user_identifiers: [affiliate.address], identifier_type: EVM }),
      shape: (answer) =>
        expect(answer).toEqual({
          project_id: project.id,
          referred_volumes: [{ user_identifier: affiliate.address, referred_volume: 100.5 }],
          total_count: 1,
        }),
    }),
    step({
      method: 'getUserPayoutsByConversion',
      call: () => Fuul.getUserPayoutsByConversion({ user_identifier: trader.identifier, identifier_type: EVM, ...range }),
      shape: (answer) => {
        list(answer);
        expect(answer.results).toEqual([expect.objectContaining({ conversion_name: 'trade', is_referrer: false, total_amount: '10000' })]);
      },
    }),
    step({
      method: 'getUserPointsByConversion',
      call: () => Fuul.getUserPointsByConversion({ user_identifier: trader.identifier, identifier_type: EVM, ...range }),
      shape: (answer) => {
        list(answer);
        expect(answer.results).toEqual([expect.objectContaining({ conversion_name: 'quest', is_referrer: false, total_amount: '40' })]);
      },
    }),
    step({
      method: 'getUserPayoutMovements',
      call: () => Fuul.getUserPayoutMovements({ user_identifier: trader.identifier, identifier_type: EVM, from_date: range.from, to_date: range.to }),
      shape: (answer) => {
        list(answer);
        expect(answer.results).toEqual([expect.objectContaining({ conversion_name: 'trade', is_referrer: false, total_amount: '10000' })]);
      },
    }),
    step({
      method: 'getUserPointsMovements',
      call: () => Fuul.getUserPointsMovements({ user_identifier: trader.identifier, identifier_type: EVM }),
      shape: (answer) => {
        list(answer);
        expect(answer.results).toEqual([
          expect.objectContaining({ conversion_name: 'quest', is_referrer: false, total_amount: '40', currency_address: null, chain_id: null }),
        ]);
      },
    }),
    step({
      method: 'getPayoutsByReferrer',
      call: () => Fuul.getPayoutsByReferrer({ user_identifier: affiliate.address, user_identifier_type: EVM }),
      shape: (answer) => expect(answer).toEqual([{ [trader.identifier]: expect.objectContaining({ volume: 100.5 }) }]),
    }),
    step({
      method: 'getAffiliateStats',
      call: () => Fuul.getAffiliateStats({ user_identifier: affiliate.address }),
      shape: (stats) => expect(stats).toMatchObject({ user_identifier: affiliate.address, referred_volume: 100.5, referred_users: 1 }),
    }),
    step({
      method: 'getAffiliateTotalStats',
      call: () => Fuul.getAffiliateTotalStats({}),
      shape: (stats) => expect(stats).toMatchObject({ total_affiliates: 1, total_volume: 100.5 }),
    }),
    step({
      method: 'getStatsBreakdown',
      call: () => Fuul.getStatsBreakdown({ user_identifier: affiliate.address, group_by: 'day', ...range }),
      shape: (answer) => expect(answer.results).toEqual([expect.objectContaining({ date: range.from, r1_volume: 100.5 })]),
    }),
    step({
      method: 'getAffiliateNewTraders',
      call: () => Fuul.getAffiliateNewTraders({ user_identifier: affiliate.address }),
      shape: (answer) => expect(answer).toEqual([{ referrer_identifier: affiliate.address, total_new_traders: '1' }]),
    }),
    step({
      method: 'getReferralTree',
      call: () => Fuul.getReferralTree({ user_identifier: affiliate.address }),
      shape: (tree) =>
        expect(tree).toMatchObject({
          user_identifier: affiliate.address,
          children: [
            { user_identifier: trader.identifier, total_volume: 100.5 },
            { user_identifier: visitor.address, total_volume: 0 },
          ],
        }),
    }),
    step({
      method: 'getAffiliatePaidVolumesByLevel',
      call: () => Fuul.getAffiliatePaidVolumesByLevel({ user_identifier: affiliate.address }),
      shape: (volumes) => expect(volumes).toMatchObject({ user_identifier: affiliate.address, payout_eligible_l1_volume: 100.5 }),
    }),
    step({
      method: 'getQualifiedUserBonus',
      call: () => Fuul.getQualifiedUserBonus({ user_identifier: affiliate.address, ...range, trigger_refs: 'trade' }),
    }),
    step({
      method: 'getHighVolumeTakerBonus',
      call: () => Fuul.getHighVolumeTakerBonus({ user_identifier: affiliate.address, trigger_refs: 'trade', this_month: 'true' }),
    }),
    step({
      method: 'getClaimChecks',
      call: () => Fuul.getClaimChecks(who()),
      shape: (answer) => {
        expect(answer.claim_checks).toEqual([expect.objectContaining({ amount: '10000', status: 'open' })]);
        openChecks = answer.claim_checks.map(({ id }) => id);
      },
    }),
    step({
      method: 'closeClaimChecks',
      call: () => Fuul.closeClaimChecks({ ...who(), claim_check_ids: openChecks }),
      shape: (vouchers) =>
        expect(vouchers).toEqual([expect.objectContaining({ to: trader.identifier, amount: '10000', signatures: expect.any(Array) })]),
    }),
    step({
      method: 'getClaimableChecks',
      call: () => Fuul.getClaimableChecks(who()),
      shape: (vouchers) => expect(vouchers).toEqual([expect.objectContaining({ amount: '10000' })]),
    }),
    step({
      method: 'getClaimCheckTotals',
      call: () => Fuul.getClaimCheckTotals(who()),
      shape: (totals) => expect(totals).toMatchObject({ claimed: [], unclaimed: [expect.objectContaining({ amount: '10000' })] }),
    }),
    step({
      method: 'getClaimHistory',
      call: () => Fuul.getClaimHistory({ ...who(), page: 1, page_size: 10 }),
      shape: (history) => expect(history).toEqual({ results: [], total_count: 0, next_page: null }),
    }),
  ];

  it('drives each method once and records its requests and whether it works', async () => {
    const all = steps();
    const moneyFrom = all.findIndex((step) => step.method === 'getUserAudiences');
    for (const [index, step] of all.entries()) {
      if (index === moneyFrom) await settle();
      await drive(step);
    }
    // Every method of the SDK's exported object, each once: a new SDK version's new method fails here.
    expect(results.map(({ method }) => method).sort()).toEqual(Object.keys(Fuul).sort());
    const ordered = Object.keys(Fuul).map((method) => results.find((result) => result.method === method)!);
    recorded = { sdkVersion: SDK_VERSION, methods: ordered };
    mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
    writeFileSync(RESULTS_FILE, `${JSON.stringify(recorded, null, 2)}\n`);
  });

  it('answers Fuul’s own bonus programs 404 NOT_OFFERED in the standard body; every other method works', () => {
    const failing = Object.fromEntries(results.filter(({ works }) => works !== 'yes').map(({ method, works }) => [method, works]));
    expect(failing).toEqual({
      getQualifiedUserBonus: 'no: 404 NOT_OFFERED',
      getHighVolumeTakerBonus: 'no: 404 NOT_OFFERED',
    });
    expect(results.find((result) => result.method === 'init')!.requests).toEqual([]);
  });

  it('README.md’s table is what the SDK saw', () => {
    // This run's record, not the file: a file left by an earlier run must not pass for this one.
    if (!recorded) throw new Error('nothing was recorded: the first test failed');
    try {
      expect(readmeSdkTable(readFileSync(README_FILE, 'utf8'))).toBe(renderSdkTable(recorded));
    } catch (error) {
      throw new Error(
        `README.md's SDK table differs from what this run saw: \`npm run sdk:table\` rewrites it from this run's results ` +
          `(${path.relative(process.cwd(), RESULTS_FILE)}).\n\n${(error as Error).message}`,
        { cause: error },
      );
    }
  });
});
