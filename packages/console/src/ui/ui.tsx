import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { indentJson } from "./raw-json.js";

/** A time as the reader's locale writes it, with the ISO text on hover. */
export function Time({ at }: { at: string | null }) {
  if (!at) return <span>—</span>;
  return (
    <time dateTime={at}>
      {new Date(at).toLocaleString(undefined, { dateStyle: "short", timeStyle: "medium" })}
    </time>
  );
}

/** An error in words, announced to screen readers. */
export function ErrorNote({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

/** What there is nothing of yet, and what to do next. */
export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="empty">{children}</div>;
}

/** A table that scrolls sideways on narrow screens (and can be scrolled with the keyboard). */
export function TableWrap({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <section class="table-wrap" tabIndex={0} aria-label={label}>
      <table>{children}</table>
    </section>
  );
}

/** A state badge (text, not only colour). */
export function StateBadge({ state }: { state: string }) {
  return <span class={`badge badge-${state}`}>{state}</span>;
}

/** JSON text shown exactly (re-indented token by token; numbers keep every digit). */
export function JsonText({ text, label }: { text: string; label: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: long payloads scroll
    <pre class="json" tabIndex={0} title={label}>
      {indentJson(text)}
    </pre>
  );
}

/** A value shown once, with a button that copies it. */
export function Secret({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  const id = `secret-${label.replace(/\W+/g, "-").toLowerCase()}`;
  return (
    <div class="secret">
      <label for={id}>{label}</label>
      <div class="row">
        <input id={id} readOnly value={value} onFocus={(e) => (e.target as HTMLInputElement).select()} />
        <button
          type="button"
          onClick={async () => {
            await navigator.clipboard.writeText(value).then(
              () => setCopied(true),
              () => setCopied(false),
            );
          }}
        >
          Copy
        </button>
      </div>
      <span role="status">{copied ? `${label} copied.` : ""}</span>
    </div>
  );
}

/** Runs an action, keeping its busy state and its error in words. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, setError };
}
