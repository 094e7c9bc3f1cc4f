/**
 * The part of ClaimManager's ABI the claim service uses, typed for viem: redeeming (`claim`, the
 * same entry as Fuul v2's IFuulManager), the `Claimed` log it follows, `claimedProofs` to ask
 * whether an expired voucher was redeemed, and the errors a refused claim reverts with.
 * test/chain/claim-manager.test.ts checks every entry against the compiled contract and Fuul's ABI.
 */
const address = <N extends string>(name: N) => ({ internalType: 'address', name, type: 'address' }) as const;
const uint256 = <N extends string>(name: N) => ({ internalType: 'uint256', name, type: 'uint256' }) as const;
const tokenType = { internalType: 'enum IFuulProject.TokenType', name: 'currencyType', type: 'uint8' } as const;
const claimReason = { internalType: 'enum IFuulManager.ClaimReason', name: 'reason', type: 'uint8' } as const;
const proof = { internalType: 'bytes32', name: 'proof', type: 'bytes32' } as const;
const error = <N extends string>(name: N) => ({ inputs: [], name, type: 'error' }) as const;

export const claimManagerAbi = [
  {
    inputs: [
      {
        components: [
          address('projectAddress'),
          address('to'),
          address('currency'),
          tokenType,
          uint256('amount'),
          claimReason,
          uint256('tokenId'),
          uint256('deadline'),
          proof,
          { internalType: 'bytes[]', name: 'signatures', type: 'bytes[]' },
        ],
        internalType: 'struct IFuulManager.ClaimCheck[]',
        name: 'claimChecks',
        type: 'tuple[]',
      },
    ],
    name: 'claim',
    outputs: [],
    stateMutability: 'payable',
    type: 'function',
  },
  {
    anonymous: false,
    inputs: [
      { ...address('projectAddress'), indexed: true },
      { ...address('to'), indexed: false },
      { ...address('currency'), indexed: false },
      { ...uint256('amount'), indexed: false },
      { ...tokenType, indexed: false },
      { ...uint256('tokenId'), indexed: false },
      { ...claimReason, indexed: false },
      { ...proof, indexed: false },
    ],
    name: 'Claimed',
    type: 'event',
  },
  {
    inputs: [proof],
    name: 'claimedProofs',
    outputs: [{ internalType: 'bool', name: '', type: 'bool' }],
    stateMutability: 'view',
    type: 'function',
  },
  error('DeadlineExpired'),
  error('DuplicateSigner'),
  error('IncorrectMsgValue'),
  error('InvalidArgument'),
  error('InvalidSigner'),
  error('NotEnoughSignatures'),
  error('ProofAlreadyClaimed'),
  error('ZeroAddress'),
  error('NativeTransferFailed'),
  {
    inputs: [address('projectAddress'), address('currency'), uint256('available'), uint256('requested')],
    name: 'InsufficientProjectBalance',
    type: 'error',
  },
] as const;
