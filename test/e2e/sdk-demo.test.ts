import type { Browser, BrowserContext, Page } from 'playwright-core';
import { randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';
import { newWallet } from '../helpers/wallet';
import { closeBrowserAndStack, DESKTOP, openChromium, openWatchedPage } from './browser';
import { buildWebApp } from './web-build';

/**
 * The tracking demo (/app/demo) in Chromium, as a visitor of a project's site meets the SDK: the
 * page, built with the project's own bundle of @fuul/sdk, sends a pageview through an `?af=` link,
 * the visitor connects an injected wallet (EIP-1193, signing with a real key in the test), and the
 * wallet becomes referred by the code's affiliate, with the click counted.
 */
describe('the @fuul/sdk tracking demo', () => {
  let stack: TestStack;
  let project: TestProject;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let violations: string[];
  let pageErrors: string[];

  beforeAll(async () => {
    await buildWebApp();
    ({ stack, project } = await startStackWithProject());
    browser = await openChromium();
    context = await browser.newContext({ viewport: DESKTOP });
    ({ page, pageErrors, violations } = await openWatchedPage(context));
  }, 240_000);

  afterAll(() => closeBrowserAndStack(browser, stack));

  it('counts the click of an ?af= visit and refers the wallet that connects', async () => {
    const affiliate = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
      key: project.keys.admin,
      body: { identifier: randomEvmAddress(), identifier_type: 'evm_address', name: 'Demo affiliate', code: 'DEMO-AF' },
    });
    expect(affiliate.status).toBe(201);
    const issued = await stack.api.post(`/api/v1/projects/${project.id}/api-keys`, {
      key: project.keys.admin,
      body: { role: 'send:tracking_event', name: 'demo page' },
    });
    expect(issued.status).toBe(201);

    // The SDK sends no event from a browser driven by automation (navigator.webdriver): the visitor here is a person.
    await page.addInitScript(() =>
      Object.defineProperty(Object.getPrototypeOf((globalThis as unknown as { navigator: object }).navigator), 'webdriver', { get: () => false }),
    );
    // The visitor's browser wallet: an EIP-1193 provider whose key stays in the test.
    const visitor = await newWallet();
    await page.exposeFunction('demoWalletSign', (message: string) => visitor.sign(message));
    await page.addInitScript((address: string) => {
      const fromHex = (hex: string) => new TextDecoder().decode(Uint8Array.from(hex.slice(2).match(/../g) ?? [], (byte) => parseInt(byte, 16)));
      (globalThis as unknown as { ethereum: unknown }).ethereum = {
        request: async ({ method, params }: { method: string; params?: string[] }) => {
          if (method === 'eth_requestAccounts') return [address];
          if (method === 'personal_sign')
            return (globalThis as unknown as { demoWalletSign(m: string): Promise<string> }).demoWalletSign(fromHex(params![0]!));
          throw new Error(`unsupported ${method}`);
        },
      };
    }, visitor.checksumAddress);

    await page.goto(`${stack.baseUrl}/app/demo?key=${encodeURIComponent(issued.body.key)}&af=DEMO-AF`);
    await page.getByText('Pageview sent, through the code DEMO-AF.').waitFor();
    await page.getByRole('button', { name: 'Connect wallet' }).click();
    await page.getByText(`Connected ${visitor.checksumAddress}`).waitFor();

    // The connect_wallet event is applied by a job: the referral appears once it ran.
    const referrer = await pollUntil(
      async () => {
        const response = await stack.api.get(`/api/v1/user/referrer?user_identifier=${visitor.address}&user_identifier_type=evm_address`, {
          key: project.keys.service,
        });
        return response.status === 200 && response.body.referrer_code !== null && response.body;
      },
      { timeoutMs: 30_000, what: 'the connected wallet to be referred' },
    );
    expect(referrer.referrer_code).toBe('DEMO-AF');

    const code = await stack.api.get(`/api/v1/affiliates/${affiliate.body.identifier}?identifier_type=evm_address`, {
      key: project.keys.service,
    });
    expect(code.body.codes[0]).toMatchObject({ code: 'DEMO-AF', clicks: 1, total_users: 1 });
    expect(violations).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
