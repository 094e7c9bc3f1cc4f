/** The user identifier types the API accepts (its `identifier_type`), evm_address first: the default everywhere. */
export const IDENTIFIER_TYPES = ['evm_address', 'solana_address', 'sui_address', 'xrpl_address', 'stellar_address', 'email'] as const;
