import { Fuul, UserIdentifierType } from '@fuul/sdk';
import '../styles.css';

/**
 * The tracking demo (/app/demo): the @fuul/sdk as a project's page runs it, pointed at this gateway.
 * The key comes from `?key=` (a send:tracking_event key is meant to be public: it may only send
 * events) and is kept for the visit, as the SDK keeps its tracking id, so that `?af=` links work.
 */

/** The one EIP-1193 call this page makes of an injected wallet (window.ethereum). */
interface InjectedWallet {
  request(args: { method: 'eth_requestAccounts' }): Promise<string[]>;
  request(args: { method: 'personal_sign'; params: [string, string] }): Promise<string>;
}

const KEY_STORAGE = 'demo.tracking_key';
const CONNECT_MESSAGE = 'Connect wallet';

function trackingKey(): string | null {
  const fromUrl = new URLSearchParams(window.location.search).get('key');
  if (fromUrl) sessionStorage.setItem(KEY_STORAGE, fromUrl);
  return fromUrl ?? sessionStorage.getItem(KEY_STORAGE);
}

function say(id: 'pageview-status' | 'wallet-status', text: string): void {
  const element = document.getElementById(id);
  if (element) element.textContent = text;
}

/** The UTF-8 message as personal_sign takes it (hex), so wallets show it as text. */
function toHex(message: string): string {
  return `0x${Array.from(new TextEncoder().encode(message), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

async function connectWallet(): Promise<void> {
  const wallet = (window as unknown as { ethereum?: InjectedWallet }).ethereum;
  if (!wallet) {
    say('wallet-status', 'No browser wallet found: install one, then reload the page.');
    return;
  }
  try {
    const [address] = await wallet.request({ method: 'eth_requestAccounts' });
    if (!address) throw new Error('the wallet shared no account');
    const signature = await wallet.request({ method: 'personal_sign', params: [toHex(CONNECT_MESSAGE), address] });
    await Fuul.identifyUser({ identifier: address, identifierType: UserIdentifierType.EvmAddress, signature, message: CONNECT_MESSAGE });
    say('wallet-status', `Connected ${address}: the connect_wallet event was accepted.`);
  } catch (error) {
    say('wallet-status', `The wallet was not connected: ${error instanceof Error ? error.message : String(error)}.`);
  }
}

async function start(): Promise<void> {
  const apiKey = trackingKey();
  if (!apiKey) {
    say('pageview-status', 'Add ?key=<a send:tracking_event key> to the address to send events.');
    return;
  }
  Fuul.init({ apiKey, baseApiUrl: `${window.location.origin}/api/v1/` });
  document.getElementById('connect')?.addEventListener('click', () => void connectWallet());
  try {
    await Fuul.sendPageview();
    const code = new URLSearchParams(window.location.search).get('af');
    say('pageview-status', code ? `Pageview sent, through the code ${code}.` : 'Pageview sent (no ?af= code in the address).');
  } catch (error) {
    say('pageview-status', `The pageview was not sent: ${error instanceof Error ? error.message : String(error)}.`);
  }
}

void start();
