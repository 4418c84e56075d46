import { buildAdminOpenApi } from "@plant-store/admin-api";

/**
 * The sender's admin API as an OpenAPI 3.1 document (served at `GET /openapi.json`, committed as
 * `apps/sender/openapi.json`), generated from the route table of `@plant-store/admin-api` — the same zod schemas the
 * sender validates requests with. It is separate from the Plant Store contract in `@plant-store/spec`: this is how
 * operators and the CLI drive the sender.
 */
export const adminOpenApi: Record<string, unknown> = buildAdminOpenApi();
