/** The event outbox between services (DESIGN §7; README "Events between services"). */
export { appendOutboxEvents } from './append';
export { type ConsumerContext, consumerJob, defineConsumer, deliverEvent, type EventConsumer, type HandleResult } from './consumer';
export type { NewOutboxEvent, OutboxEvent, OutboxEventOf } from './event';
export { OutboxRelay, type OutboxWaker } from './relay';
export { type OutboxConfig, registerConsumer, startOutboxRelay } from './runtime';
export { createOutboxTables, type OutboxTables } from './tables';
