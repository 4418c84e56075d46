import { useState } from "preact/hooks";
import { ErrorNote, useAction } from "../ui.js";
import type { SenderApi, Subscription } from "./sender-api.js";

/**
 * The actions of a page of cards, one at a time: each card answers in itself, so a refusal shows beside the form
 * that caused it. `act(card, work)` runs `work` (which says what it did), then `reload`.
 *
 * @example
 * ```tsx
 * const cards = useCardActions(refresh);
 * <button onClick={() => void cards.act("enable", async () => "Enabled.")}>Enable</button>
 * {cards.feedback("enable")}
 * ```
 */
export function useCardActions(reload: () => Promise<void>) {
  const action = useAction();
  const [done, setDone] = useState<{ at: string; text: string } | null>(null);
  const [failedAt, setFailedAt] = useState<string | null>(null);
  const act = (at: string, work: () => Promise<string>) => {
    setDone(null);
    setFailedAt(at);
    return action.run(async () => {
      setDone({ at, text: await work() });
      await reload();
    });
  };
  const feedback = (at: string) => (
    <>
      {failedAt === at && <ErrorNote error={action.error} />}
      <p role="status" class="ok">
        {done?.at === at ? done.text : ""}
      </p>
    </>
  );
  return { busy: action.busy, act, feedback };
}

/** What a card of a subscription's page gets: the actions it shares with the other cards. */
export type CardActions = ReturnType<typeof useCardActions>;

/** What each card of a subscription's page gets: the API, the subscription as last loaded, the shared actions. */
export interface CardProps {
  api: SenderApi;
  sub: Subscription;
  cards: CardActions;
}
