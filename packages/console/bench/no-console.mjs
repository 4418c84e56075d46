// The console's server as if it were not mounted: it claims no path, so /console answers the app's 404.
export const CONSOLE_PATH = "/console";
export const CONSOLE_CSP = "default-src 'none'";
export function createConsoleServer() {
  return {
    serves: () => false,
    respond: () => {
      throw new Error("the console is not mounted in this run");
    },
  };
}
