import type {
  Delivery,
  ListDeliveriesOptions,
  OutboxMessage,
  Page,
  Store,
  Subscription,
} from "@plant-store/store";
import type { FastifyRequest } from "fastify";

/** Whom a request's bearer token speaks for: the operator, or one application's portal. */
export type Principal =
  | { readonly kind: "operator" }
  | { readonly kind: "portal"; readonly applicationId: string; readonly expiresAt: Date };

/**
 * What an admin handler may read: for a portal, the store's reads scoped to its application (each query takes the
 * application id as a parameter); for the operator, everything. Handlers find every resource through this view,
 * so another application's id answers 404 exactly as one that does not exist.
 */
export interface AdminView {
  /** The portal's application, `null` for the operator. */
  readonly applicationId: string | null;
  listSubscriptions(options?: { enabled?: boolean | undefined }): Promise<Subscription[]>;
  getSubscription(id: string): Promise<Subscription | null>;
  getDelivery(id: number): Promise<Delivery | null>;
  listDeliveries(options?: ListDeliveriesOptions): Promise<Page<Delivery>>;
  getMessage(id: string): Promise<OutboxMessage | null>;
}

/** The principals of the requests in flight, set by the auth hook and read by the handlers. */
export type Principals = WeakMap<FastifyRequest, Principal>;

/**
 * The view a principal gets: the operator's reads everything, a portal's is `store.applications.reads(id)`.
 *
 * @example
 * ```ts
 * const view = viewOf(store, { kind: "portal", applicationId: "app_…", expiresAt });
 * await view.getSubscription("sub_of_another_app"); // null
 * ```
 */
export function viewOf(store: Store, principal: Principal): AdminView {
  if (principal.kind === "portal") return store.applications.reads(principal.applicationId);
  return operatorView(store);
}

function operatorView(store: Store): AdminView {
  return {
    applicationId: null,
    listSubscriptions: (options) => store.subscriptions.list(options),
    getSubscription: (id) => store.subscriptions.get(id),
    getDelivery: (id) => store.outbox.getDelivery(id),
    listDeliveries: (options) => store.outbox.listDeliveries(options),
    getMessage: (id) => store.outbox.getMessage(id),
  };
}

/**
 * The principal of a request the auth hook let through. A request without one (a route served without a token)
 * is the operator's only on the public routes, which read nothing of any application.
 *
 * @example
 * ```ts
 * const principal = principalOf(context.principals, request);
 * ```
 */
export function principalOf(principals: Principals, request: FastifyRequest): Principal {
  const found = principals.get(request);
  // No principal: the hook did not run for it (a public route). Such a request sees nothing scoped.
  if (!found) throw new Error("No principal for an authenticated route; the auth hook did not run.");
  return found;
}
