/**
 * The admin client's defaults, in a module of their own that imports nothing, so a CLI can name them in its help
 * without loading the schemas.
 */

/** The admin client's deadline per request, unless configured. */
export const DEFAULT_ADMIN_TIMEOUT_MS = 30_000;
