import type { ChannelOptions } from '@grpc/grpc-js';

/** Shared by servers and clients: a 10,000-entry batch of long identifiers must fit in one message. */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

export const channelOptions: ChannelOptions = {
  'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 1,
  // Channelz bookkeeping costs CPU on every call and nothing here reads it.
  'grpc.enable_channelz': 0,
  // No compression (identity, said outright): the messages are small and local, compressing them costs more CPU than it saves.
  'grpc.default_compression_algorithm': 0,
  // A restarted service is reached again within a couple of seconds (grpc-js backs off up to 120 s
  // by default, and answers UNAVAILABLE to every call meanwhile).
  'grpc.initial_reconnect_backoff_ms': 250,
  'grpc.max_reconnect_backoff_ms': 2_000,
};

/** Keys of a generated service/client interface without its index signature. */
export type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : K]: T[K] };

export const REQUEST_ID_METADATA_KEY = 'x-request-id';
