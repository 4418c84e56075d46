import type { InboxEvent } from "../api/inbox.js";
import type { Delivery, DeliveryAttempt, DeliveryState, OutboxMessage, TraceCarrier } from "../api/outbox.js";
import { publishedIdempotencyKey } from "./application-rules.js";
import { toDate } from "./time.js";

type Int = number | string;

/** Columns of `inbox_events` (pg returns int8 as strings, jsonb parsed). */
export interface InboxRow {
  seq: Int;
  webhook_id: string;
  event_type: string;
  body: Uint8Array;
  headers: string | Record<string, string>;
  received_at: Int;
  processed_at: Int | null;
}

export function toInboxEvent(row: InboxRow): InboxEvent {
  return {
    seq: Number(row.seq),
    webhookId: row.webhook_id,
    eventType: row.event_type,
    body: row.body,
    headers: typeof row.headers === "string" ? JSON.parse(row.headers) : row.headers,
    receivedAt: new Date(Number(row.received_at)),
    processedAt: toDate(row.processed_at),
  };
}

/** An inbox event as `record()` validated it, waiting for its group commit (both backends). */
export interface PendingInboxRow {
  webhookId: string;
  eventType: string;
  body: Buffer;
  headers: Record<string, string>;
  receivedAt: number;
}

/** The event a committed pending row became, with the seq the database gave it. */
export function storedInboxEvent(row: PendingInboxRow, seq: number): InboxEvent {
  return {
    seq,
    webhookId: row.webhookId,
    eventType: row.eventType,
    body: row.body,
    headers: row.headers,
    receivedAt: new Date(row.receivedAt),
    processedAt: null,
  };
}

/** Columns of `deliveries`. */
export interface DeliveryRow {
  id: Int;
  message_id: string;
  subscription_id: string;
  state: DeliveryState;
  due_at: Int;
  attempts: Int;
  lease_owner: string | null;
  last_status: Int | null;
  last_error: string | null;
  created_at: Int;
  updated_at: Int;
  finished_at: Int | null;
}

export function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: Number(row.id),
    messageId: row.message_id,
    subscriptionId: row.subscription_id,
    state: row.state,
    dueAt: new Date(Number(row.due_at)),
    attempts: Number(row.attempts),
    leaseOwner: row.lease_owner,
    lastStatus: row.last_status === null ? null : Number(row.last_status),
    lastError: row.last_error,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
    finishedAt: toDate(row.finished_at),
  };
}

/** Columns of `delivery_attempts`. */
export interface AttemptRow {
  id: Int;
  delivery_id: Int;
  attempt: Int;
  attempted_at: Int;
  status: Int | null;
  latency_ms: Int;
  response_body: string | null;
  error: string | null;
  worker_id: string | null;
}

export function toAttempt(row: AttemptRow): DeliveryAttempt {
  return {
    id: Number(row.id),
    deliveryId: Number(row.delivery_id),
    attempt: Number(row.attempt),
    attemptedAt: new Date(Number(row.attempted_at)),
    status: row.status === null ? null : Number(row.status),
    latencyMs: Number(row.latency_ms),
    responseBody: row.response_body,
    error: row.error,
    workerId: row.worker_id,
  };
}

/** Columns of `messages`. */
export interface MessageRow {
  id: string;
  idempotency_key: string | null;
  event_type: string;
  body: Uint8Array;
  created_at: Int;
  trace_context: string | null;
}

export function toMessage(row: MessageRow): OutboxMessage {
  return {
    id: row.id,
    eventType: row.event_type,
    body: row.body,
    idempotencyKey: publishedIdempotencyKey(row.idempotency_key),
    createdAt: new Date(Number(row.created_at)),
    traceContext: traceCarrierOf(row.trace_context),
  };
}

/**
 * A message's stored trace context (`messages.trace_context`, JSON written by `checkTraceContext`), or `null`. A
 * value no publish wrote (not JSON, not an object; edited by hand or damaged) is `null`, and a field that is not text
 * is left out: tracing is never a reason for a claim to fail, and the claim runs in the transaction that leases.
 */
export function traceCarrierOf(text: string | null): TraceCarrier | null {
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const fields = Object.entries(value).filter(([, field]) => typeof field === "string");
  return fields.length === 0 ? null : (Object.fromEntries(fields) as TraceCarrier);
}
