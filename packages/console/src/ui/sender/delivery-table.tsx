import { StateBadge, TableWrap, Time } from "../ui.js";
import type { Delivery } from "./sender-api.js";

/**
 * Deliveries, each linking to its page and to its subscription's.
 *
 * @example
 * ```tsx
 * <DeliveryTable deliveries={page.data} />
 * ```
 */
export function DeliveryTable({ deliveries }: { deliveries: Delivery[] }) {
  return (
    <TableWrap label="Deliveries">
      <thead>
        <tr>
          <th scope="col">Id</th>
          <th scope="col">State</th>
          <th scope="col">Subscription</th>
          <th scope="col">Message</th>
          <th scope="col">Attempts</th>
          <th scope="col">Last answer</th>
          <th scope="col">Created</th>
        </tr>
      </thead>
      <tbody>
        {deliveries.map((d) => (
          <tr key={d.id} data-delivery={d.id}>
            <td>
              <a href={`#/deliveries/${d.id}`}>{d.id}</a>
            </td>
            <td>
              <StateBadge state={d.state} />
            </td>
            <td>
              <a href={`#/subscriptions/${d.subscriptionId}`}>{d.subscriptionId}</a>
            </td>
            <td class="mono">{d.messageId}</td>
            <td>{d.attempts}</td>
            <td class="wrap">{d.lastStatus ?? d.lastError ?? "—"}</td>
            <td>
              <Time at={d.createdAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </TableWrap>
  );
}
