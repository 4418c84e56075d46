/**
 * The SSRF guard (app-kit's, shared with the receiver's destinations): which addresses the sender may connect to,
 * and the `fetch` and transport that enforce it.
 *
 * @module
 */
export {
  type AddressVerdict,
  type AllowList,
  checkAddress,
  createGuardedFetch,
  type GuardedFetch,
  parseAllowList,
  type Resolver,
  resolveTarget,
  systemResolver,
  UNRESOLVED_CODE,
} from "@plant-store/app-kit";
