import type { ReceiverInput } from "@plant-store/admin-api";
import { signingKeyProblem } from "@plant-store/app-kit";
import type { SigningScheme } from "@plant-store/core";
import { unknownEventMessage } from "@plant-store/spec";
import { activeSecrets, type Destination, type DestinationStats } from "@plant-store/store";
import { type DestinationsContext, iso } from "./context.js";
import { ApiError, type ReceiverHandlers } from "./router.js";

type DestinationOp =
  | "createDestination"
  | "listDestinations"
  | "getDestination"
  | "updateDestination"
  | "deleteDestination"
  | "pauseDestination"
  | "resumeDestination"
  | "enableDestination"
  | "rotateDestinationSecret"
  | "getDestinationSecret";

/**
 * The routes of a destination itself: create, list, get, change, delete, pause, resume, enable, rotate and read its
 * signing secret. Each answers the destination with its queue (depth, lag, failed) from `store.destinations.stats()`.
 *
 * @example
 * ```ts
 * const handlers = { ...destinationHandlers(context), ...forwardHandlers(context) };
 * ```
 */
export function destinationHandlers(context: DestinationsContext): Pick<ReceiverHandlers, DestinationOp> {
  const { store } = context;
  const view = (d: Destination) => destinationView(context, d);
  return {
    createDestination: (input) => createDestination(context, input),
    listDestinations: async () => {
      const [all, stats] = await Promise.all([store.destinations.list(), store.destinations.stats()]);
      const byId = new Map(stats.map((entry) => [entry.destinationId, entry]));
      return { data: all.map((d) => destinationJson(context, d, byId.get(d.id))), nextCursor: null };
    },
    getDestination: async ({ params }) => view(await loadDestination(context, params.id)),
    updateDestination: async ({ params, body }) => {
      checkSigning(context, body.signing);
      const eventTypes = knownTypes(context, body.eventTypes);
      return view(
        await store.destinations.update(params.id, {
          ...body,
          ...(eventTypes !== undefined && { eventTypes }),
        }),
      );
    },
    deleteDestination: async ({ params }) => {
      if (!(await store.destinations.delete(params.id))) throw notFound(params.id);
      return { id: params.id, deleted: true as const };
    },
    pauseDestination: async ({ params }) => view(await store.destinations.pause(params.id)),
    resumeDestination: async ({ params }) => view(await store.destinations.resume(params.id)),
    enableDestination: async ({ params }) => view(await store.destinations.enable(params.id)),
    rotateDestinationSecret: async ({ params, body }) => {
      await loadDestination(context, params.id);
      const rotated = await store.destinations.rotateSecret(params.id, body.value, {
        ...(body.graceSeconds !== undefined && { graceMs: body.graceSeconds * 1000 }),
      });
      return { secret: newestSecret(rotated) };
    },
    getDestinationSecret: async ({ params }) => ({
      secret: newestSecret(await loadDestination(context, params.id)),
    }),
  };
}

async function createDestination(context: DestinationsContext, { body }: ReceiverInput<"createDestination">) {
  checkSigning(context, body.signing);
  const eventTypes = knownTypes(context, body.eventTypes);
  const created = await context.store.destinations.create({
    ...body,
    ...(eventTypes !== undefined && { eventTypes }),
  });
  return { ...(await destinationView(context, created)), secret: newestSecret(created) };
}

/** The destination, or 404. */
export async function loadDestination(context: DestinationsContext, id: string): Promise<Destination> {
  const found = await context.store.destinations.get(id);
  if (!found) throw notFound(id);
  return found;
}

const notFound = (id: string) => new ApiError(404, `No destination ${id.slice(0, 100)}.`);

/** The newest active secret: the one a service switching over verifies with. */
function newestSecret(d: Destination): string {
  return activeSecrets(d).at(-1) ?? d.secrets.at(-1)?.secret ?? "";
}

/** v1a needs the receiver's private key (`--forward-private-key`): refused in words without one. */
function checkSigning({ canSignAsymmetric }: DestinationsContext, signing: SigningScheme | undefined): void {
  const problem = signingKeyProblem(signing, canSignAsymmetric, "--forward-private-key");
  if (problem !== null) throw new ApiError(400, problem);
}

/** Event types a destination names must be webhooks the receiver serves: a typo would silently forward nothing. */
function knownTypes(
  { catalog }: DestinationsContext,
  types: readonly string[] | null | undefined,
): readonly string[] | null | undefined {
  const unknown = types?.find((type) => !catalog.some((entry) => entry.type === type));
  if (unknown !== undefined) throw new ApiError(400, `eventTypes: ${unknownEventMessage(catalog, unknown)}`);
  return types;
}

async function destinationView(context: DestinationsContext, d: Destination) {
  const stats = await context.store.destinations.stats();
  return destinationJson(
    context,
    d,
    stats.find((entry) => entry.destinationId === d.id),
  );
}

function destinationJson(context: DestinationsContext, d: Destination, stats: DestinationStats | undefined) {
  const now = context.now?.() ?? Date.now();
  const oldest = stats?.oldestPendingAt ?? null;
  return {
    id: d.id,
    name: d.name,
    url: d.url,
    eventTypes: d.eventTypes,
    state: !d.enabled ? ("disabled" as const) : d.paused ? ("paused" as const) : ("active" as const),
    enabled: d.enabled,
    paused: d.paused,
    disabledReason: d.disabledReason,
    disabledAt: iso(d.disabledAt),
    ordered: d.ordered,
    maxInFlight: d.maxInFlight,
    rateLimit: d.rateLimit,
    headerNames: Object.keys(d.headers),
    timeoutMs: d.timeoutMs,
    signing: d.signing,
    signingSecrets: activeSecrets(d).length,
    depth: stats?.depth ?? 0,
    oldestPendingAt: iso(oldest),
    lagSeconds: oldest ? Math.max(0, (now - oldest.getTime()) / 1000) : 0,
    failed: stats?.failed ?? 0,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}
