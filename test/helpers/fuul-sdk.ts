/** What the tests that drive the published @fuul/sdk share: its set-up, its browser, its signed messages and its refusals. */

import { Fuul } from '@fuul/sdk';

/** Points the SDK's one configuration of the process at the stack's gateway, with this key of the project. */
export function initFuulSdk(stack: { baseUrl: string }, apiKey: string): void {
  Fuul.init({ apiKey, baseApiUrl: `${stack.baseUrl}/api/v1/` });
}

/** The messages the gateway asks an affiliate to sign by default (the AFFILIATE_*_MESSAGE_TEMPLATE settings). */
export const creationMessage = (code: string) => `I confirm that I am creating the ${code} code`;
export const updateMessage = (code: string) => `I confirm that I am updating my code to ${code}`;
export const rebateMessage = (code: string, rate: number) => `I confirm that I am setting the rebate rate of ${code} to ${rate}`;

/**
 * The browser the @fuul/sdk expects, reduced to what it reads: the page's URL (window.location,
 * document.location), document.referrer, localStorage (its tracking id and its record of sent
 * events) and navigator.webdriver.
 */
export class FakeBrowser {
  readonly storage = new Map<string, string>();
  page = new URL('https://app.example.com/');

  install(): void {
    const storage = this.storage;
    const page = () => this.page;
    Object.assign(globalThis, {
      window: {
        get location() {
          return page();
        },
      },
      document: {
        get location() {
          return page();
        },
        referrer: '',
      },
      localStorage: {
        getItem: (key: string) => storage.get(key) ?? null,
        setItem: (key: string, value: string) => storage.set(key, String(value)),
        removeItem: (key: string) => storage.delete(key),
        clear: () => storage.clear(),
      },
    });
    if (!('navigator' in globalThis)) Object.assign(globalThis, { navigator: { webdriver: false } });
  }

  uninstall(): void {
    for (const name of ['window', 'document', 'localStorage']) delete (globalThis as Record<string, unknown>)[name];
  }

  /** A new visitor (no tracking id yet, nothing sent) opening `url`. */
  visit(url: string): void {
    this.storage.clear();
    this.page = new URL(url);
  }

  get trackingId(): string {
    const id = this.storage.get('fuul.tracking_id');
    if (id === undefined) throw new Error('the SDK has not made a tracking id yet');
    return id;
  }
}

/** The status and body of an SDK call the gateway refused (the SDK's axios error); throws if it succeeded. */
export async function refusal(call: Promise<unknown>): Promise<{ status: number; body: { code: string; details: unknown[] } }> {
  try {
    await call;
  } catch (error) {
    const response = (error as { response?: { status: number; data: { code: string; details: unknown[] } } }).response;
    if (response) return { status: response.status, body: response.data };
    throw error;
  }
  throw new Error('the call succeeded');
}
