import { render } from "preact";
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { ApiError, appKind, type EventType } from "./api.js";
import { useRoute } from "./hooks.js";
import { DestinationsPage } from "./receiver/destinations-page.js";
import { createReceiverApi, type ReceiverApi } from "./receiver/receiver-api.js";
import { ReceiverPage } from "./receiver/receiver-page.js";
import { ApplicationsPage } from "./sender/applications-page.js";
import { DeliveriesPage } from "./sender/deliveries-page.js";
import { DeliveryPage } from "./sender/delivery-page.js";
import { SenderOverview } from "./sender/overview-page.js";
import { PublishPage } from "./sender/publish-page.js";
import { createSenderApi, type SenderApi, type Session } from "./sender/sender-api.js";
import { SubscriptionPage } from "./sender/subscription-page.js";
import { SubscriptionsPage } from "./sender/subscriptions-page.js";
import { forgetToken, openedFromLink, savedToken, saveToken, takeLinkToken } from "./session.js";
import { ErrorNote } from "./ui.js";
import "./styles.css";

type AppKind = "sender" | "receiver";
/** The API of the app this page came from. */
type AppApi = { app: "sender"; api: SenderApi } | { app: "receiver"; api: ReceiverApi };

function apiFor(app: AppKind, token: string): AppApi {
  return app === "sender" ? { app, api: createSenderApi(token) } : { app, api: createReceiverApi(token) };
}

function Login({
  app,
  onToken,
  notice,
}: {
  app: AppKind;
  onToken: (token: string) => void;
  notice: string | null;
}) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(notice);
  const [busy, setBusy] = useState(false);
  return (
    <main id="main" class="login">
      <h1>Plant Store {app} console</h1>
      <form
        class="card"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          const chosen = apiFor(app, token.trim());
          try {
            if (chosen.app === "sender") await chosen.api.call("listSubscriptions", {});
            else await chosen.api.events({ limit: 1 });
            saveToken(token.trim());
            onToken(token.trim());
          } catch (e) {
            const message = (e as Error).message;
            setError(
              e instanceof ApiError && e.status === 401
                ? `${message} Check the token the ${app} was started with (--admin-token / PLANT_STORE_ADMIN_TOKENS).`
                : message,
            );
          } finally {
            setBusy(false);
          }
        }}
      >
        <label for="token">Admin token</label>
        <input
          id="token"
          type="password"
          autocomplete="current-password"
          required
          value={token}
          onInput={(e) => setToken((e.target as HTMLInputElement).value)}
        />
        <p class="muted">Kept in this tab only, until you log out or close it.</p>
        <button type="submit" disabled={busy}>
          Log in
        </button>
        <ErrorNote error={error} />
      </form>
    </main>
  );
}

/** The portal's view of its session: the application it manages, until when. */
type Portal = { name: string; uid: string; expiresAt: string };

/** The sender page a route names; a portal reaches only its subscriptions and deliveries (the rest shows its list). */
function senderPage(
  api: SenderApi,
  segments: string[],
  params: URLSearchParams,
  types: EventType[],
  portal: Portal | null,
) {
  const [first, second] = segments;
  if (first === "subscriptions" && second) return <SubscriptionPage api={api} id={second} types={types} />;
  if (first === "deliveries" && second) return <DeliveryPage api={api} id={second} types={types} />;
  if (first === "deliveries") return <DeliveriesPage api={api} params={params} />;
  if (portal !== null || first === "subscriptions")
    return (
      <SubscriptionsPage
        api={api}
        types={types}
        application={portal ? undefined : (params.get("application") ?? undefined)}
      />
    );
  if (first === "publish") return <PublishPage api={api} types={types} />;
  if (first === "applications") return <ApplicationsPage api={api} />;
  return <SenderOverview api={api} />;
}

const RECEIVER_LINKS: [string, string][] = [
  ["/", "Events"],
  ["/destinations", "Destinations"],
];

const OPERATOR_LINKS: [string, string][] = [
  ["/", "Overview"],
  ["/applications", "Applications"],
  ["/subscriptions", "Subscriptions"],
  ["/deliveries", "Deliveries"],
  ["/publish", "Publish"],
];
const PORTAL_LINKS: [string, string][] = [
  ["/subscriptions", "Subscriptions"],
  ["/deliveries", "Deliveries"],
];

/** Ends the portal's session at its expiry: the page then asks for a new link. */
function useExpiry(portal: Portal | null, onExpired: () => void) {
  useEffect(() => {
    if (!portal) return;
    const timer = setTimeout(onExpired, Math.max(0, Date.parse(portal.expiresAt) - Date.now()));
    return () => clearTimeout(timer);
  }, [portal, onExpired]);
}

function Shell({
  chosen,
  portal,
  onLogout,
  onExpired,
}: {
  chosen: AppApi;
  portal: Portal | null;
  onLogout: () => void;
  onExpired: () => void;
}) {
  const { app } = chosen;
  const route = useRoute();
  // The event types the app serves (its --spec document's), asked once: a webhook added there shows up here.
  const [types, setTypes] = useState<EventType[]>([]);
  const [typesError, setTypesError] = useState<string | null>(null);
  useEffect(() => {
    chosen.api.eventTypes().then(setTypes, (e: Error) => setTypesError(`Event types: ${e.message}`));
  }, [chosen]);
  useExpiry(portal, onExpired);
  const [path, search] = route.split("?") as [string, string | undefined];
  const params = new URLSearchParams(search ?? "");
  const links: [string, string][] =
    app === "sender" ? (portal ? PORTAL_LINKS : OPERATOR_LINKS) : RECEIVER_LINKS;
  const segments = path.split("/").filter(Boolean);
  const page =
    chosen.app === "receiver" ? (
      segments[0] === "destinations" ? (
        <DestinationsPage api={chosen.api} />
      ) : (
        <ReceiverPage api={chosen.api} types={types} />
      )
    ) : (
      senderPage(chosen.api, segments, params, types, portal)
    );
  useEffect(() => {
    document.title = portal ? `${portal.name}: webhooks` : `Plant Store ${app} console`;
  }, [app, portal]);
  const current = (href: string) =>
    href === "/" ? segments.length === 0 : `/${segments[0] ?? (portal ? "subscriptions" : "")}` === href;
  return (
    <>
      <header>
        <span class="brand">{portal ? `${portal.name} · webhooks` : `Plant Store · ${app}`}</span>
        <nav aria-label="Console">
          {links.map(([href, label]) => (
            <a key={href} href={`#${href}`} aria-current={current(href) ? "page" : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <button type="button" class="secondary" onClick={onLogout}>
          Log out
        </button>
      </header>
      <main id="main" tabIndex={-1} key={path}>
        <ErrorNote error={typesError} />
        {page}
      </main>
    </>
  );
}

/** What a portal link's page shows once its token stopped working (expired, revoked, application deleted). */
function AskForLink({ notice }: { notice: string | null }) {
  return (
    <main id="main" class="login">
      <h1>Ask for a new link</h1>
      <p class="card">
        {notice ?? "This page was opened from a link that is no longer valid."} A link to manage your webhooks
        works for a limited time: ask for a new one where you got this one.
      </p>
    </main>
  );
}

/** The sender's session for `token`: the operator, a portal, or refused (401). */
function useSession(chosen: AppApi | null, onRefused: () => void) {
  const [session, setSession] = useState<Session | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setSession(null);
    if (chosen?.app !== "sender") return;
    chosen.api.call("getSession", {}).then(setSession, (e: Error) => {
      if (e instanceof ApiError && e.status === 401) onRefused();
      else setError(e.message);
    });
  }, [chosen, onRefused]);
  return { session, error };
}

function Console() {
  const [app, setApp] = useState<AppKind | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [token, setToken] = useState<string | null>(() => takeLinkToken() ?? savedToken());
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(() => {
    appKind().then(setApp, (e: Error) => setError(e.message));
  }, []);
  const chosen = useMemo(() => (app && token ? apiFor(app, token) : null), [app, token]);
  const end = useCallback((message: string) => {
    forgetToken();
    setNotice(message);
    setToken(null);
  }, []);
  const refused = useCallback(() => end("The link has expired or was revoked."), [end]);
  const { session, error: sessionError } = useSession(chosen, refused);
  if (error || sessionError) return <ErrorNote error={error ?? sessionError} />;
  if (!app) return <p>Loading…</p>;
  if (!chosen)
    return openedFromLink() ? (
      <AskForLink notice={notice} />
    ) : (
      <Login app={app} onToken={setToken} notice={notice} />
    );
  if (app === "sender" && !session) return <p>Loading…</p>;
  const portal =
    session?.role === "portal"
      ? { name: session.application.name, uid: session.application.uid, expiresAt: session.expiresAt }
      : null;
  return <Shell chosen={chosen} portal={portal} onLogout={() => end("Logged out.")} onExpired={refused} />;
}

render(<Console />, document.getElementById("app") as HTMLElement);
