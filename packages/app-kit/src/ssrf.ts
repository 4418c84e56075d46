/**
 * The SSRF guard: which addresses the sender may connect to, and the `fetch` and transport that enforce it.
 *
 * @module
 */
export { type AllowList, parseAllowList, refuseMetadataNetworks } from "./ssrf/allow-list.js";
export { type AddressVerdict, checkAddress } from "./ssrf/check-address.js";
export { UNRESOLVED_CODE } from "./ssrf/guard-context.js";
export { createGuardedFetch, type GuardedFetch } from "./ssrf/guarded-fetch.js";
export { type Resolver, resolveTarget, systemResolver } from "./ssrf/resolve-target.js";
