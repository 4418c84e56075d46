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
