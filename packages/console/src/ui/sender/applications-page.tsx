import { useState } from "preact/hooks";
import { usePoll } from "../hooks.js";
import { POLL_MS } from "../poll.js";
import { Empty, ErrorNote, Secret, TableWrap, Time, useAction } from "../ui.js";
import type { Application, PortalLink, SenderApi } from "./sender-api.js";

/** The form that adds an application: the customer's id in the operator's system, and a name. */
function NewApplicationForm({ api, onCreated }: { api: SenderApi; onCreated: () => Promise<void> }) {
  const [uid, setUid] = useState("");
  const [name, setName] = useState("");
  const action = useAction();
  return (
    <form
      class="card"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          await api.call("createApplication", { body: { uid: uid.trim(), name: name.trim() } });
          setUid("");
          setName("");
          await onCreated();
        });
      }}
    >
      <h2>Add an application</h2>
      <label for="app-uid">Customer id (uid)</label>
      <input
        id="app-uid"
        required
        value={uid}
        onInput={(e) => setUid((e.target as HTMLInputElement).value)}
      />
      <label for="app-name">Name</label>
      <div class="row">
        <input
          id="app-name"
          required
          value={name}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={action.busy}>
          Add
        </button>
      </div>
      <ErrorNote error={action.error} />
    </form>
  );
}

/** A portal link just made: shown once (the token is stored only as a hash). */
function LinkShown({ app, link, onDone }: { app: Application; link: PortalLink; onDone: () => void }) {
  return (
    <section class="card shown-once" aria-labelledby="portal-link">
      <h2 id="portal-link">Portal link for {app.name}</h2>
      <p>
        Send it to the customer: it opens this console showing only {app.name}'s subscriptions and deliveries,
        until <Time at={link.expiresAt} />. It is shown this once.
      </p>
      <Secret label="Portal link" value={link.url} />
      <button type="button" onClick={onDone}>
        Done
      </button>
    </section>
  );
}

function ApplicationRow({
  app,
  api,
  onLink,
}: {
  app: Application;
  api: SenderApi;
  onLink: (l: PortalLink) => void;
}) {
  const action = useAction();
  const [revoked, setRevoked] = useState(false);
  return (
    <tr>
      <td class="mono">{app.uid}</td>
      <td>{app.name}</td>
      <td class="mono">
        <a href={`#/subscriptions?application=${encodeURIComponent(app.uid)}`}>{app.id}</a>
      </td>
      <td>
        <Time at={app.createdAt} />
      </td>
      <td>
        <button
          type="button"
          disabled={action.busy}
          onClick={() =>
            void action.run(async () =>
              onLink(await api.call("createPortalLink", { params: { id: app.id } })),
            )
          }
        >
          Open a portal link
        </button>{" "}
        <button
          type="button"
          class="secondary"
          disabled={action.busy}
          onClick={() =>
            void action.run(async () => {
              await api.call("revokePortalLinks", { params: { id: app.id } });
              setRevoked(true);
            })
          }
        >
          Revoke its links
        </button>
        <span role="status">{revoked ? " Revoked." : ""}</span>
        <ErrorNote error={action.error} />
      </td>
    </tr>
  );
}

/**
 * Applications (the operator's): one per customer, with a portal link that lets the customer manage its own
 * subscriptions.
 *
 * @example
 * ```tsx
 * <ApplicationsPage api={api} />
 * ```
 */
export function ApplicationsPage({ api }: { api: SenderApi }) {
  const [list, setList] = useState<Application[] | null>(null);
  const [shown, setShown] = useState<{ app: Application; link: PortalLink } | null>(null);
  const poll = usePoll(async () => setList((await api.call("listApplications", {})).data), POLL_MS * 5, []);
  return (
    <>
      <h1>Applications</h1>
      <NewApplicationForm api={api} onCreated={poll.refresh} />
      {shown && <LinkShown app={shown.app} link={shown.link} onDone={() => setShown(null)} />}
      <section aria-labelledby="all-applications">
        <h2 id="all-applications">All applications</h2>
        <ErrorNote error={poll.error} />
        {list === null ? (
          poll.error ? null : (
            <p>Loading…</p>
          )
        ) : list.length === 0 ? (
          <Empty>No applications yet.</Empty>
        ) : (
          <TableWrap label="Applications">
            <thead>
              <tr>
                <th scope="col">uid</th>
                <th scope="col">Name</th>
                <th scope="col">Id</th>
                <th scope="col">Created</th>
                <th scope="col">Portal</th>
              </tr>
            </thead>
            <tbody>
              {list.map((app) => (
                <ApplicationRow key={app.id} app={app} api={api} onLink={(link) => setShown({ app, link })} />
              ))}
            </tbody>
          </TableWrap>
        )}
      </section>
    </>
  );
}
