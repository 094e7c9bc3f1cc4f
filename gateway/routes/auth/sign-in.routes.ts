import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { nonceBody, nonceSchema, sessionSchema, verifyBody } from './sign-in.schemas';

const tags = ['Wallet sign-in'];
const none = { kind: 'none' } as const;

/** Sign-In with Ethereum: the wallet signs a message the server issued, and gets a session token. */
export function signInRoutes({ signIn }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/auth/nonce',
        operationId: 'startWalletSignIn',
        summary: 'Start a wallet sign-in: get a one-time nonce and the message to sign',
        description: 'The message names this service’s domain and URI, the nonce, when it was issued and when it expires.',
        tags,
        auth: none,
        body: nonceBody,
        responses: { 200: { description: 'The message to sign', schema: nonceSchema } },
      },
      async ({ body }) => {
        const issued = await signIn.start(body.address);
        return { status: 200, body: { nonce: issued.nonce, message: issued.message, expires_at: issued.expiresAt.toISOString() } };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/auth/verify',
        operationId: 'finishWalletSignIn',
        summary: 'Finish a wallet sign-in: exchange the signed message for a session token',
        description:
          'The nonce works once: every attempt consumes it. An expired, reused, altered or wrongly signed message answers 401 ' +
          '(codes SIWE_MESSAGE_EXPIRED, SIWE_NONCE_INVALID, SIWE_MESSAGE_TAMPERED, SIWE_SIGNATURE_INVALID, SIWE_MESSAGE_INVALID). ' +
          'The signature is the address’s key’s (EIP-191), or a contract wallet’s (EIP-1271) on SIWE_CHAIN_ID when that chain is in ' +
          'CHAIN_RPC_URLS; 503 CHAIN_UNAVAILABLE when that chain does not answer (request a new nonce).',
        tags,
        auth: none,
        body: verifyBody,
        responses: {
          200: { description: 'A session token for the address', schema: sessionSchema },
          401: { description: 'The message or its signature is not accepted' },
        },
      },
      async ({ body }) => {
        const { token, session } = await signIn.verify(body.message, body.signature);
        return { status: 200, body: { token, address: session.address, expires_at: session.expiresAt.toISOString() } };
      },
    ),
  ];
}
