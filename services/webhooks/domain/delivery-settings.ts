/** What a delivery attempt needs of the configuration (services/webhooks/config.ts). */
export interface DeliverySettings {
  timeoutMs: number;
  maxAttempts: number;
  backoffMs: number;
  retryWindowMs: number;
  /** Whether plain http to localhost is refused too (production). */
  production: boolean;
}
