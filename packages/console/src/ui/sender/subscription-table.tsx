import type { EventType } from "../api.js";
import { StateBadge, TableWrap, Time } from "../ui.js";
import type { Subscription } from "./sender-api.js";
import { typeNames } from "./type-names.js";

/**
 * All subscriptions, each linking to its page.
 *
 * @example
 * ```tsx
 * <SubscriptionTable list={list} types={types} />
 * ```
 */
export function SubscriptionTable({ list, types }: { list: Subscription[]; types: EventType[] }) {
  return (
    <TableWrap label="Subscriptions">
      <thead>
        <tr>
          <th scope="col">Id</th>
          <th scope="col">URL</th>
          <th scope="col">Event types</th>
          <th scope="col">State</th>
          <th scope="col">Created</th>
        </tr>
      </thead>
      <tbody>
        {list.map((s) => (
          <tr key={s.id}>
            <td>
              <a href={`#/subscriptions/${s.id}`}>{s.id}</a>
            </td>
            <td class="wrap">{s.url}</td>
            <td>{typeNames(s.eventTypes, types)}</td>
            <td>
              <StateBadge state={s.enabled ? "enabled" : "disabled"} />
              {s.disabledReason && <span class="muted"> {s.disabledReason}</span>}
            </td>
            <td>
              <Time at={s.createdAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </TableWrap>
  );
}
