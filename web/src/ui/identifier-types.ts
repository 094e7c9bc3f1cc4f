/** The user identifier types the API takes (services/rules/identifiers.ts), for the pickers that name one. */
export const IDENTIFIER_TYPES = ['evm_address', 'solana_address', 'sui_address', 'xrpl_address', 'stellar_address', 'email'] as const;
