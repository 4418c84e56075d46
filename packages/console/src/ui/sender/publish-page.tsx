import { useState } from "preact/hooks";
import type { EventType } from "../api.js";
import { ErrorNote, useAction } from "../ui.js";
import { PublishFileCard } from "./publish-file-card.js";
import type { SenderApi } from "./sender-api.js";

/** An event type's first example as JSON text to start from (the document's example, re-printed). */
function exampleOf(type: EventType | undefined): string {
  const example = type?.examples[0];
  return example ? JSON.stringify(example.value, null, 2) : "{}";
}

/**
 * Publishes one event of a type the sender publishes, as typed, or a file of events (`PublishFileCard`).
 *
 * @example
 * ```tsx
 * <PublishPage api={api} types={types} />
 * ```
 */
export function PublishPage({ api, types }: { api: SenderApi; types: EventType[] }) {
  const [chosen, setChosen] = useState<string | null>(null);
  const type = types.find((t) => t.type === chosen) ?? types[0];
  const [payload, setPayload] = useState<string | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const action = useAction();
  const text = payload ?? exampleOf(type);
  return (
    <>
      <h1>Publish an event</h1>
      <form
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(async () => {
            const published = await api.call("publishEvent", {
              body: text,
              query: type ? { type: type.type } : {},
            });
            setResult(
              `Published ${published.messageId}: ${published.deliveries} ${published.deliveries === 1 ? "delivery" : "deliveries"}${published.duplicate ? " (a duplicate of an earlier publish)" : ""}.`,
            );
          });
        }}
      >
        {types.length > 1 && (
          <>
            <label for="publish-type">Event type</label>
            <select
              id="publish-type"
              value={type?.type}
              onChange={(e) => {
                setChosen((e.target as HTMLSelectElement).value);
                setPayload(null); // start from the new type's example
                setResult(null);
              }}
            >
              {types.map((t) => (
                <option key={t.type} value={t.type}>
                  {t.name}
                </option>
              ))}
            </select>
          </>
        )}
        <label for="payload">{type?.name ?? "Event"} payload (JSON; sent exactly as typed)</label>
        <textarea
          id="payload"
          rows={8}
          value={text}
          onInput={(e) => setPayload((e.target as HTMLTextAreaElement).value)}
        />
        <button type="submit" disabled={action.busy}>
          Publish
        </button>
        <ErrorNote error={action.error} />
        <p role="status" class="ok">
          {result ?? ""}
        </p>
        {result && (
          <p>
            <a href="#/deliveries">See its deliveries</a>
          </p>
        )}
      </form>
      {type && <PublishFileCard api={api} defaultType={type.type} />}
    </>
  );
}
