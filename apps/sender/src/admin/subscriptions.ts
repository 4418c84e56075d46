import type { AdminInput } from "@plant-store/admin-api";
import {
  createSecret,
  createToken,
  DEFAULT_DISABLE_REASON,
  parseDateTime,
  type SigningScheme,
} from "@plant-store/core";
import { unknownEventMessage } from "@plant-store/spec";
import { activeSecrets, type Subscription } from "@plant-store/store";
import { ApiError } from "../route-table.js";
import { resolveTarget } from "../ssrf.js";
import type { AdminContext, ResourceHandlers } from "./context.js";
import { isKnownType } from "./events.js";
import { iso } from "./iso.js";

/**
 * The routes tagged `subscriptions`: create, list, get, change, delete, disable, enable, rotate a credential and
 * recover failed deliveries.
 *
 * @example
 * ```ts
 * registerRoutes(app, { ...subscriptionHandlers(context), … });
 * ```
 */
export function subscriptionHandlers(context: AdminContext): ResourceHandlers<"subscriptions"> {
  const { store } = context;
  const load = (params: { id: string }) => loadSubscription(context, params);
  return {
    createSubscription: { handle: (input) => createSubscription(context, input) },
    listSubscriptions: { handle: (input) => listSubscriptions(context, input) },
    getSubscription: { load, handle: async (_input, { loaded }) => subscriptionJson(loaded) },
    updateSubscription: { load, handle: (input) => updateSubscription(context, input) },
    deleteSubscription: { load, handle: (input) => deleteSubscription(context, input) },
    disableSubscription: {
      load,
      handle: async ({ params, body }) =>
        subscriptionJson(await store.subscriptions.disable(params.id, body.reason ?? DEFAULT_DISABLE_REASON)),
    },
    enableSubscription: {
      load,
      handle: async ({ params }) => subscriptionJson(await store.subscriptions.enable(params.id)),
    },
    rotateCredential: { load, handle: (input) => rotateCredential(context, input) },
    recoverSubscription: {
      load,
      handle: async ({ params, body }) => ({
        requeued: await store.outbox.recover(params.id, parseDateTime(body.since) as number),
      }),
    },
  };
}

async function loadSubscription({ store }: AdminContext, { id }: { id: string }): Promise<Subscription> {
  const found = await store.subscriptions.get(id);
  if (!found) throw new ApiError(404, `No subscription ${id}.`);
  return found;
}

async function createSubscription(context: AdminContext, { body }: AdminInput<"createSubscription">) {
  const url = await checkUrl(context, body.url);
  const token = body.token ?? createToken();
  const secret = body.secret ?? createSecret();
  const eventTypes = knownTypes(context, body.eventTypes);
  const signing = signingScheme(context, body.signing);
  const created = await context.store.subscriptions.create({
    url,
    token,
    secrets: [secret],
    ...(eventTypes !== undefined && { eventTypes }),
    ...(signing !== undefined && { signing }),
  });
  return { ...subscriptionJson(created), token, secret };
}

async function listSubscriptions({ store }: AdminContext, { query }: AdminInput<"listSubscriptions">) {
  const all = await store.subscriptions.list(
    query.enabled === undefined ? {} : { enabled: query.enabled === "true" },
  );
  return { data: all.map(subscriptionJson), nextCursor: null };
}

async function updateSubscription(context: AdminContext, { params, body }: AdminInput<"updateSubscription">) {
  const eventTypes = knownTypes(context, body.eventTypes);
  const signing = signingScheme(context, body.signing);
  return subscriptionJson(
    await context.store.subscriptions.update(params.id, {
      ...(body.url !== undefined && { url: await checkUrl(context, body.url) }),
      ...(eventTypes !== undefined && { eventTypes }),
      ...(signing !== undefined && { signing }),
    }),
  );
}

async function deleteSubscription({ store }: AdminContext, { params }: AdminInput<"deleteSubscription">) {
  // A delete racing this one finds nothing: the same 404 as an unknown id.
  if (!(await store.subscriptions.delete(params.id)))
    throw new ApiError(404, `No subscription ${params.id}.`);
  return { id: params.id, deleted: true as const };
}

async function rotateCredential({ store }: AdminContext, { params, body }: AdminInput<"rotateCredential">) {
  if (body.kind === "token") {
    const token = body.value ?? createToken();
    await store.subscriptions.update(params.id, { token });
    return { token };
  }
  const secret = body.value ?? createSecret();
  await store.subscriptions.rotateSecret(params.id, secret, { graceMs: body.graceSeconds * 1000 });
  return { secret };
}

async function checkUrl({ allow, resolve }: AdminContext, url: string): Promise<string> {
  const verdict = await resolveTarget(new URL(url), allow, resolve);
  if (!verdict.ok) throw new ApiError(400, `The URL is refused: ${verdict.reason}`);
  return url;
}

/** Event types a subscription names must be webhooks of the catalog: a typo would silently receive nothing. */
function knownTypes(
  { catalog }: AdminContext,
  types: readonly string[] | null | undefined,
): readonly string[] | null | undefined {
  const unknown = types?.find((type) => !isKnownType(catalog, type));
  if (unknown !== undefined) throw new ApiError(400, `eventTypes: ${unknownEventMessage(catalog, unknown)}`);
  return types;
}

function signingScheme(
  { canSignAsymmetric }: AdminContext,
  signing: SigningScheme | undefined,
): SigningScheme | undefined {
  if (signing !== undefined && signing !== "symmetric" && !canSignAsymmetric) {
    throw new ApiError(
      400,
      `signing "${signing}" needs the sender's ed25519 private key: start it with --private-key whsk_… (create one with \`plant-store keypair create\`).`,
    );
  }
  return signing;
}

function subscriptionJson(s: Subscription) {
  return {
    id: s.id,
    url: s.url,
    enabled: s.enabled,
    disabledReason: s.disabledReason,
    disabledAt: iso(s.disabledAt),
    failingSince: iso(s.failingSince),
    signingSecrets: activeSecrets(s).length,
    eventTypes: s.eventTypes,
    signing: s.signing,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}
