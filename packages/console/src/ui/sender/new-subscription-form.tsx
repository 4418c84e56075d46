import { useState } from "preact/hooks";
import type { EventType } from "../api.js";
import { ErrorNote, useAction } from "../ui.js";
import { EndpointFields, endpointBody, NO_ENDPOINT_FIELDS } from "./endpoint-fields.js";
import type { NewSubscription, SenderApi } from "./sender-api.js";

/** Which event types a new subscription receives; none ticked means every type. */
function EventTypeChoice({
  types,
  takes,
  onChange,
}: {
  types: EventType[];
  takes: string[];
  onChange: (takes: string[]) => void;
}) {
  return (
    <fieldset>
      <legend>Event types it receives (none ticked: every type, also ones added later)</legend>
      {types.map((t) => (
        <label key={t.type} class="check">
          <input
            type="checkbox"
            checked={takes.includes(t.type)}
            onChange={(e) =>
              onChange(
                (e.target as HTMLInputElement).checked
                  ? [...takes, t.type]
                  : takes.filter((x) => x !== t.type),
              )
            }
          />{" "}
          {t.name} <span class="muted mono">{t.type}</span>
        </label>
      ))}
    </fieldset>
  );
}

/** A token and secret the receiver already has, instead of generated ones. */
function OwnCredentials({
  own,
  onChange,
}: {
  own: { token: string; secret: string };
  onChange: (own: { token: string; secret: string }) => void;
}) {
  return (
    <details>
      <summary>The receiver already has a token and secret</summary>
      <p class="muted">Leave these empty to have new ones generated (shown once, below).</p>
      <label for="own-token">Bearer token to use</label>
      <input
        id="own-token"
        autocomplete="off"
        value={own.token}
        onInput={(e) => onChange({ ...own, token: (e.target as HTMLInputElement).value })}
      />
      <label for="own-secret">Signing secret to use</label>
      <input
        id="own-secret"
        autocomplete="off"
        placeholder="whsec_…"
        value={own.secret}
        onInput={(e) => onChange({ ...own, secret: (e.target as HTMLInputElement).value })}
      />
    </details>
  );
}

/**
 * The form that adds a subscription; `onCreated` gets the answer, with its credentials shown once.
 *
 * @example
 * ```tsx
 * <NewSubscriptionForm api={api} types={types} onCreated={setCreated} />
 * ```
 */
export function NewSubscriptionForm({
  api,
  application,
  types,
  onCreated,
}: {
  api: SenderApi;
  /** The application it is made in; absent: the default one (or, for a portal, its own). */
  application?: string | undefined;
  types: EventType[];
  onCreated: (created: NewSubscription) => Promise<void>;
}) {
  const [url, setUrl] = useState("");
  const [own, setOwn] = useState({ token: "", secret: "" });
  const [takes, setTakes] = useState<string[]>([]);
  const [fields, setFields] = useState(NO_ENDPOINT_FIELDS);
  const action = useAction();
  const create = () =>
    api.call("createSubscription", {
      body: {
        url: url.trim(),
        ...(application !== undefined && { application }),
        ...(own.token.trim() && { token: own.token.trim() }),
        ...(own.secret.trim() && { secret: own.secret.trim() }),
        // None ticked: every type, also those added to the document later.
        eventTypes: takes.length > 0 ? takes : null,
        ...endpointBody(fields),
      },
    });
  return (
    <form
      class="card"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          const created = await create();
          setUrl("");
          setOwn({ token: "", secret: "" });
          setTakes([]);
          setFields(NO_ENDPOINT_FIELDS);
          await onCreated(created);
        });
      }}
    >
      <h2>Add a subscription</h2>
      <label for="new-url">Receiver URL</label>
      <div class="row">
        <input
          id="new-url"
          type="url"
          required
          placeholder="https://receiver.example/plant/webhook"
          value={url}
          onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={action.busy}>
          Add
        </button>
      </div>
      {types.length > 1 && <EventTypeChoice types={types} takes={takes} onChange={setTakes} />}
      <details>
        <summary>Details and endpoint options (id, description, metadata, rate limit, headers)</summary>
        <EndpointFields prefix="new" text={fields} onChange={setFields} />
      </details>
      <OwnCredentials own={own} onChange={setOwn} />
      <ErrorNote error={action.error} />
    </form>
  );
}
