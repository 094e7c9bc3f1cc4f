/**
 * viem publishes its type declarations as ES modules, which this CommonJS build may not import
 * statically; import() loads it both in the compiled build (native ESM) and under the tests.
 */
const load = () =>
  Promise.all([import('viem'), import('viem/siwe')]).then(([viem, siwe]) => ({
    getAddress: viem.getAddress,
    isAddress: viem.isAddress,
    verifyMessage: viem.verifyMessage,
    createPublicClient: viem.createPublicClient,
    http: viem.http,
    custom: viem.custom,
    RpcError: viem.RpcError,
    LimitExceededRpcError: viem.LimitExceededRpcError,
    createSiweMessage: siwe.createSiweMessage,
    parseSiweMessage: siwe.parseSiweMessage,
    validateSiweMessage: siwe.validateSiweMessage,
  }));

let loading: ReturnType<typeof load> | undefined;

export function ethereum(): ReturnType<typeof load> {
  loading ??= load();
  return loading;
}
