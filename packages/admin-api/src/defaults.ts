/**
 * The admin API's defaults and caps that a client needs before it calls, in a module of their own that imports
 * nothing, so a CLI can name them in its help without loading the schemas.
 */

/** The admin client's deadline per request, unless configured. */
export const DEFAULT_ADMIN_TIMEOUT_MS = 30_000;

/**
 * The body cap of `POST /events/batch` (the other routes keep the sender's `bodyLimit`): a larger body answers 413.
 * A client splits its events into batches under it, and under `MAX_BATCH_EVENTS` events.
 */
export const MAX_BATCH_BODY_BYTES = 4 * 1024 * 1024;
