import { readdirSync, readFileSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** Which app serves the console: it shows what that app has. */
export type ConsoleApp = "sender" | "receiver";

/** A response of the console's static server, framework-neutral (the sender uses Fastify, the receiver node:http). */
export interface ConsoleResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
}

/** Serves the built console under {@link CONSOLE_PATH}. */
export interface ConsoleServer {
  /** Whether `path` (without the query) belongs to the console. */
  serves(path: string): boolean;
  /** The answer to `method path`; call it only for paths it {@link ConsoleServer.serves}. */
  respond(method: string, path: string): ConsoleResponse;
}

/** Where the apps serve the console. */
export const CONSOLE_PATH = "/console";

/**
 * The Content-Security-Policy of every console response: scripts, styles and requests only from the app itself,
 * no inline script or style element, no framing, no form posting elsewhere.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS = {
  "content-security-policy": CONSOLE_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
} as const;

const JSON_TYPE = "application/json; charset=utf-8";
const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json; charset=utf-8",
};

/** The built single-page app: dist/ui, reached the same way from src/server (tests) and dist/server. */
const DEFAULT_ROOT = fileURLToPath(new URL("../../dist/ui/", import.meta.url));

/**
 * The console's static server. Files are read once, at the first console request (an app nobody opens the console
 * of never reads them); `/console/app.json` tells the page which app it runs in. Hashed assets are cached for a
 * year, the page itself never.
 *
 * @example
 * ```ts
 * const consoleServer = createConsoleServer({ app: "receiver" });
 * if (consoleServer.serves(path)) {
 *   const { status, headers, body } = consoleServer.respond(req.method ?? "GET", path);
 *   res.writeHead(status, headers).end(body);
 * }
 * ```
 */
export function createConsoleServer(options: { app: ConsoleApp; root?: string }): ConsoleServer {
  const root = options.root ?? DEFAULT_ROOT;
  let files: Map<string, Buffer> | null = null;
  const appJson = JSON.stringify({ app: options.app });

  function load(): Map<string, Buffer> {
    const found = new Map<string, Buffer>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else found.set(`/${relative(root, full).split(sep).join("/")}`, readFileSync(full));
      }
    };
    try {
      walk(root);
    } catch {
      return new Map(); // not built: answered with a 503 that says so, retried at the next request
    }
    return found;
  }

  return {
    serves: (path) => path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`),
    respond(method, path) {
      if (method !== "GET" && method !== "HEAD") {
        return text(405, `${method} is not allowed on ${path}; the console is read with GET.`, {
          allow: "GET, HEAD",
        });
      }
      if (path === CONSOLE_PATH) {
        return { status: 308, headers: { ...SECURITY_HEADERS, location: `${CONSOLE_PATH}/` }, body: "" };
      }
      const sub = path.slice(CONSOLE_PATH.length);
      if (sub === "/app.json") {
        return {
          status: 200,
          headers: { ...SECURITY_HEADERS, "content-type": JSON_TYPE, "cache-control": "no-store" },
          body: appJson,
        };
      }
      if (files === null || files.size === 0) files = load();
      if (files.size === 0) {
        return text(
          503,
          "The console is not built in this installation: run `pnpm --filter @plant-store/console build`.",
        );
      }
      const name = sub === "/" ? "/index.html" : sub;
      const body = files.get(name);
      if (!body) return text(404, `Nothing is served at ${path}. The console is at ${CONSOLE_PATH}/.`);
      const hashed = name.startsWith("/assets/");
      return {
        status: 200,
        headers: {
          ...SECURITY_HEADERS,
          "content-type": TYPES[extname(name)] ?? "application/octet-stream",
          "cache-control": hashed ? "public, max-age=31536000, immutable" : "no-cache",
        },
        body,
      };
    },
  };
}

function text(status: number, message: string, extra: Record<string, string> = {}): ConsoleResponse {
  return {
    status,
    headers: { ...SECURITY_HEADERS, "content-type": JSON_TYPE, "cache-control": "no-store", ...extra },
    body: JSON.stringify({ error: status, message }),
  };
}
