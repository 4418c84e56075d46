import { render } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { type Api, ApiError, appKind, createApi } from "./api.js";
import { useRoute } from "./hooks.js";
import { ReceiverPage } from "./receiver.js";
import {
  DeliveriesPage,
  DeliveryPage,
  PublishPage,
  SenderOverview,
  SubscriptionPage,
  SubscriptionsPage,
} from "./sender.js";
import { forgetToken, savedToken, saveToken } from "./session.js";
import { ErrorNote } from "./ui.js";
import "./styles.css";

type AppKind = "sender" | "receiver";

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
          const api = createApi(token.trim());
          try {
            if (app === "sender") await api.sender.subscriptions();
            else await api.receiver.events({ limit: 1 });
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

function Shell({ app, api, onLogout }: { app: AppKind; api: Api; onLogout: () => void }) {
  const route = useRoute();
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
      : [["/", "Events"]];
  const segments = path.split("/").filter(Boolean);
  let page = null;
  if (app === "receiver") page = <ReceiverPage api={api} />;
  else if (segments[0] === "subscriptions" && segments[1])
    page = <SubscriptionPage api={api} id={segments[1]} />;
  else if (segments[0] === "subscriptions") page = <SubscriptionsPage api={api} />;
  else if (segments[0] === "deliveries" && segments[1]) page = <DeliveryPage api={api} id={segments[1]} />;
  else if (segments[0] === "deliveries") page = <DeliveriesPage api={api} params={params} />;
  else if (segments[0] === "publish") page = <PublishPage api={api} />;
  else page = <SenderOverview api={api} />;
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
  const api = useMemo(() => (token ? createApi(token) : null), [token]);
  if (error) return <ErrorNote error={error} />;
  if (!app) return <p>Loading…</p>;
  if (!api) return <Login app={app} onToken={setToken} notice={notice} />;
  return (
    <Shell
      app={app}
      api={api}
      onLogout={() => {
        forgetToken();
        setNotice("Logged out.");
        setToken(null);
      }}
    />
  );
}

render(<Console />, document.getElementById("app") as HTMLElement);
