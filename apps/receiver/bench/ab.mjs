// A/B harness (dev only): node bench/ab.mjs rounds seconds 'label=cmd args' ...
// {TOKEN} {SECRET} {DB} are substituted. Prints per-round rps and server CPU µs/req (all threads).
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createSecret, createToken } from "@plant-store/core";
const run = promisify(execFile);
const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const [rounds, seconds, ...specs] = process.argv.slice(2);
const token = createToken(), secret = createSecret();
const dir = mkdtempSync(join(tmpdir(), "ab-"));
const variants = specs.map((s) => { const i = s.indexOf("="); return { label: s.slice(0, i), cmd: s.slice(i + 1), cpu: [], rps: [] }; });
const cpu = (pid) => readdirSync(`/proc/${pid}/task`).reduce((a, t) => { const f = readFileSync(`/proc/${pid}/task/${t}/stat`, "utf8").split(") ")[1].split(" "); return a + Number(f[11]) + Number(f[12]); }, 0) * 10;
for (let r = 0; r < Number(rounds); r++) {
  for (const v of variants) {
    const db = join(dir, `b${r}.db`);
    const args = v.cmd.replaceAll("{TOKEN}", token).replaceAll("{SECRET}", secret).replaceAll("{DB}", db).split(" ");
    const child = spawn(args[0] === "node" ? process.execPath : args[0], args.slice(1), { stdio: ["ignore", "pipe", "inherit"] });
    const port = await new Promise((res, rej) => { let out = ""; const on = (c) => { out += c; const l = out.split("\n").find((l) => l.includes('"port"') || l.includes('"listening"')); if (!l) return; child.stdout.off("data", on); child.stdout.resume(); const p = JSON.parse(l); res(p.port ?? new URL(p.url).port); }; child.stdout.on("data", on); child.once("exit", (c) => rej(new Error(`exit ${c} ${out}`))); });
    const url = `http://127.0.0.1:${port}`;
    await run(process.execPath, [here("./load.mjs"), url, token, secret, "2", `w${r}${v.label}`]);
    const c0 = cpu(child.pid);
    const { stdout } = await run(process.execPath, [here("./load.mjs"), url, token, secret, seconds, `r${r}${v.label}`]);
    const c1 = cpu(child.pid);
    child.kill("SIGTERM"); await new Promise((res) => child.once("exit", res));
    const res = JSON.parse(stdout);
    if (res.non2xx || res.errors) throw new Error(`${v.label}: ${stdout}`);
    const us = ((c1 - c0) * 1000) / res.total;
    v.cpu.push(us); v.rps.push(res.rps);
    console.log(`round ${r} ${v.label.padEnd(12)} ${Math.round(res.rps)} rps  p99 ${res.p99}  ${us.toFixed(1)} µs/req`);
  }
}
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
for (const v of variants) console.log(`${v.label.padEnd(12)} median ${Math.round(med(v.rps))} rps ${med(v.cpu).toFixed(1)} µs/req  ratio-to-first ${(med(v.rps.map((x, i) => x / variants[0].rps[i]))).toFixed(2)}`);
rmSync(dir, { recursive: true, force: true });
