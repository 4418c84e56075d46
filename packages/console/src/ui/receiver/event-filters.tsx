import type { EventType } from "../api.js";

/**
 * The receiver's filters: text in the webhook id or payload, and the event type when it serves several.
 *
 * @example
 * ```tsx
 * <EventFilters text={text} type={type} types={types} onText={setText} onType={setType} />
 * ```
 */
export function EventFilters({
  text,
  type,
  types,
  onText,
  onType,
}: {
  text: string;
  type: string;
  types: EventType[];
  onText: (text: string) => void;
  onType: (type: string) => void;
}) {
  return (
    <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
      <div>
        <label for="f-text">Webhook id or payload contains</label>
        <input id="f-text" value={text} onInput={(e) => onText((e.target as HTMLInputElement).value)} />
      </div>
      {types.length > 1 && (
        <div>
          <label for="f-type">Event type</label>
          <select id="f-type" value={type} onChange={(e) => onType((e.target as HTMLSelectElement).value)}>
            <option value="">any</option>
            {types.map((t) => (
              <option key={t.type} value={t.type}>
                {t.name}
              </option>
            ))}
          </select>
        </div>
      )}
    </form>
  );
}
