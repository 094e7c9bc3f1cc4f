/** Who acts, as the gateway sends it: an API key's id, or nobody (a wallet acting for itself). */
export const actorOf = (actor: { apiKeyId?: string | undefined } | undefined) => ({ apiKeyId: actor?.apiKeyId ?? null });
