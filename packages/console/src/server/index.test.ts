import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONSOLE_CSP, createConsoleServer } from "./index.js";

function fakeBuild(): string {
  const root = mkdtempSync(join(tmpdir(), "console-"));
  mkdirSync(join(root, "assets"));
  writeFileSync(join(root, "index.html"), "<!doctype html><title>x</title>");
  writeFileSync(join(root, "assets", "index-abc.js"), "console.log(1)");
  return root;
}

describe("createConsoleServer", () => {
  it("serves the page and hashed assets with the strict CSP, caching only the hashed ones", () => {
    const server = createConsoleServer({ app: "sender", root: fakeBuild() });
    const page = server.respond("GET", "/console/");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["content-security-policy"]).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain("unsafe-inline");
    expect(page.headers["cache-control"]).toBe("no-cache");
    const js = server.respond("GET", "/console/assets/index-abc.js");
    expect(js.status).toBe(200);
    expect(js.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(js.headers["cache-control"]).toContain("immutable");
    expect(js.headers["x-content-type-options"]).toBe("nosniff");
  });

  it("tells the page which app it runs in", () => {
    for (const app of ["sender", "receiver"] as const) {
      const answer = createConsoleServer({ app, root: fakeBuild() }).respond("GET", "/console/app.json");
      expect(JSON.parse(String(answer.body))).toEqual({ app });
    }
  });

  it("redirects /console to /console/, refuses other methods, and serves nothing outside its files", () => {
    const server = createConsoleServer({ app: "receiver", root: fakeBuild() });
    expect(server.respond("GET", "/console")).toMatchObject({
      status: 308,
      headers: { location: "/console/" },
    });
    const post = server.respond("POST", "/console/");
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe("GET, HEAD");
    for (const path of ["/console/../package.json", "/console/nope.js", "/console/assets/../../x"]) {
      const answer = server.respond("GET", path);
      expect(answer.status).toBe(404);
      expect(JSON.parse(String(answer.body)).message).toContain("/console/");
    }
    expect(server.serves("/console")).toBe(true);
    expect(server.serves("/console/x")).toBe(true);
    expect(server.serves("/consoles")).toBe(false);
    expect(server.serves("/events")).toBe(false);
  });

  it("says how to build it when it is not built", () => {
    const answer = createConsoleServer({ app: "sender", root: join(tmpdir(), "no-such-console") }).respond(
      "GET",
      "/console/",
    );
    expect(answer.status).toBe(503);
    expect(JSON.parse(String(answer.body)).message).toContain("pnpm --filter @plant-store/console build");
  });
});
