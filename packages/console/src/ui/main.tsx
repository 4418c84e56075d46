import { render } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { ApiError, appKind, type EventType } from "./api.js";
import { useRoute } from "./hooks.js";
import { DestinationsPage } from "./receiver/destinations-page.js";
import { createReceiverApi, type ReceiverApi } from "./receiver/receiver-api.js";
import { ReceiverPage } from "./receiver/receiver-page.js";
import { DeliveriesPage } from "./sender/deliveries-page.js";
import { DeliveryPage } from "./sender/delivery-page.js";
import { SenderOverview } from "./sender/overview-page.js";
import { PublishPage } from "./sender/publish-page.js";
import { createSenderApi, type SenderApi } from "./sender/sender-api.js";
import { SubscriptionPage } from "./sender/subscription-page.js";
import { SubscriptionsPage } from "./sender/subscriptions-page.js";
import { forgetToken, savedToken, saveToken } from "./session.js";
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

function Shell({ chosen, onLogout }: { chosen: AppApi; onLogout: () => void }) {
  const { app } = chosen;
  const route = useRoute();
  // The event types the app serves (its --spec document's), asked once: a webhook added there shows up here.
  const [types, setTypes] = useState<EventType[]>([]);
  const [typesError, setTypesError] = useState<string | null>(null);
  useEffect(() => {
    chosen.api.eventTypes().then(setTypes, (e: Error) => setTypesError(`Event types: ${e.message}`));
  }, [chosen]);
  const [path, search] = route.split("?") as [string, string | undefined];
  const params = new URLSearchParams(search ?? "");
  const links: [string, string][] =
    app === "sender"
      ? [
          ["/", "Overview"],
          ["/subscriptions", "Subscriptions"],
          ["/deliveries", "Deliveries"],
          ["/publish", "Publish"],
        ]
      : [
          ["/", "Events"],
          ["/destinations", "Destinations"],
        ];
  const segments = path.split("/").filter(Boolean);
  let page = null;
  if (chosen.app === "receiver")
    page =
      segments[0] === "destinations" ? (
        <DestinationsPage api={chosen.api} />
      ) : (
        <ReceiverPage api={chosen.api} types={types} />
      );
  else {
    const api = chosen.api;
    if (segments[0] === "subscriptions" && segments[1])
      page = <SubscriptionPage api={api} id={segments[1]} types={types} />;
    else if (segments[0] === "subscriptions") page = <SubscriptionsPage api={api} types={types} />;
    else if (segments[0] === "deliveries" && segments[1])
      page = <DeliveryPage api={api} id={segments[1]} types={types} />;
    else if (segments[0] === "deliveries") page = <DeliveriesPage api={api} params={params} />;
    else if (segments[0] === "publish") page = <PublishPage api={api} types={types} />;
    else page = <SenderOverview api={api} />;
  }
  useEffect(() => {
    document.title = `Plant Store ${app} console`;
  }, [app]);
  return (
    <>
      <header>
        <span class="brand">Plant Store · {app}</span>
        <nav aria-label="Console">
          {links.map(([href, label]) => (
            <a
              key={href}
              href={`#${href}`}
              aria-current={
                (href === "/" ? segments.length === 0 : `/${segments[0]}` === href) ? "page" : undefined
              }
            >
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

function Console() {
  const [app, setApp] = useState<AppKind | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [token, setToken] = useState<string | null>(savedToken());
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(() => {
    appKind().then(setApp, (e: Error) => setError(e.message));
  }, []);
  const chosen = useMemo(() => (app && token ? apiFor(app, token) : null), [app, token]);
  if (error) return <ErrorNote error={error} />;
  if (!app) return <p>Loading…</p>;
  if (!chosen) return <Login app={app} onToken={setToken} notice={notice} />;
  return (
    <Shell
      chosen={chosen}
      onLogout={() => {
        forgetToken();
        setNotice("Logged out.");
        setToken(null);
      }}
    />
  );
}

render(<Console />, document.getElementById("app") as HTMLElement);
