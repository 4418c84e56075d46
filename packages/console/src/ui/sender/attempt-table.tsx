import { TableWrap, Time } from "../ui.js";
import type { Attempt } from "./sender-api.js";

/**
 * A delivery's attempts: time, status, latency, the response's first bytes, the error.
 *
 * @example
 * ```tsx
 * <AttemptTable attempts={attempts} />
 * ```
 */
export function AttemptTable({ attempts }: { attempts: Attempt[] }) {
  return (
    <TableWrap label="Attempts">
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Time</th>
          <th scope="col">Status</th>
          <th scope="col">Latency</th>
          <th scope="col">Response (first bytes)</th>
          <th scope="col">Error</th>
        </tr>
      </thead>
      <tbody>
        {attempts.map((a) => (
          <tr key={a.attempt} data-attempt={a.attempt}>
            <td>{a.attempt}</td>
            <td>
              <Time at={a.attemptedAt} />
            </td>
            <td>{a.status ?? "—"}</td>
            <td>{a.latencyMs === null ? "—" : `${a.latencyMs} ms`}</td>
            <td class="wrap mono">{a.responseBody ?? ""}</td>
            <td class="wrap">{a.error ?? ""}</td>
          </tr>
        ))}
      </tbody>
    </TableWrap>
  );
}
