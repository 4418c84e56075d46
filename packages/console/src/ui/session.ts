// The admin token lives in this tab's sessionStorage: it survives a reload of the tab (debugging means reloading)
// and is gone when the tab closes; other tabs and other apps' consoles (another port is another origin) never see
// it. It is never put in a URL or in localStorage. With the console's CSP (scripts from the app only, no inline
// script), a script able to read sessionStorage could as well read a variable in memory.
const KEY = "plant-store-console-token";

/** The token this tab logged in with, if any. */
export function savedToken(): string | null {
  return sessionStorage.getItem(KEY);
}

/** Keeps the token for this tab. */
export function saveToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

/** Forgets it (log out, or refused). */
export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}

/** Where a portal link puts its token: the URL's fragment (`#token=pst_…`), which browsers never send. */
const LINK_TOKEN = /^#token=([A-Za-z0-9_-]+)$/;
const PORTAL_KEY = "plant-store-console-portal";

/**
 * The token of a portal link this page was opened with, moved into this tab's sessionStorage and removed from the
 * address bar and its history entry (`history.replaceState`), so it is neither bookmarked nor shown; `null` when
 * the page was not opened from a link.
 */
export function takeLinkToken(): string | null {
  const found = LINK_TOKEN.exec(location.hash);
  if (!found?.[1]) return null;
  history.replaceState(null, "", `${location.pathname}${location.search}#/`);
  saveToken(found[1]);
  sessionStorage.setItem(PORTAL_KEY, "1");
  return found[1];
}

/** Whether this tab was opened from a portal link: when its token stops working, it asks for a new link. */
export function openedFromLink(): boolean {
  return sessionStorage.getItem(PORTAL_KEY) === "1";
}
