// Where the instructions of a two-run difference go, function by function: callgrind_annotate's self (or, with
// --inclusive, inclusive) cost of each function in the run of 3N units minus the run of N units, per unit.
//   node bench/callgrind-diff.mjs <small callgrind files> <large callgrind files> <units N> [--inclusive] [top]
//   node bench/callgrind-diff.mjs <small> <large> <units N> --grouped   (self cost summed by kind, every function:
//   JIT-compiled code, TurboFan compiling, the scavenger, the rest of the GC, V8's builtins, its runtime, HMAC and
//   SHA-256, SQLite, llhttp, malloc and the C library, node; the kind of a function is the first pattern it matches)
// Each side is one file or several, comma-separated (the parts `callgrind_control -d` dumped), summed. Run the
// counting benches with BENCH_KEEP=1 to keep their callgrind files.
import { execFileSync } from "node:child_process";

const [small, large, units, ...rest] = process.argv.slice(2);
const inclusive = rest.includes("--inclusive");
const grouped = rest.includes("--grouped");
const top = Number(rest.find((arg) => /^\d+$/.test(arg)) ?? 40);

/** What kind of work a function is, by its name in callgrind's listing; the first pattern that matches decides. */
const KINDS = [
  ["JIT-compiled code (no symbol)", /\?\?\?:0x[0-9a-f]+$/],
  [
    "TurboFan compiling",
    /compiler::|Turbofan|turboshaft|Pipeline|InstructionSelector|RegisterAllocat|MoveOptimizer|Typer|GraphReducer|JSCallReducer|CodeGenerator|Zone::|Assembler/,
  ],
  ["GC: scavenger", /Scaveng|Evacuat|SemiSpace|NewSpace|YoungGeneration|Minor/],
  [
    "GC: the rest",
    /heap::|Heap|Mark|Sweep|GC|Remembered|SlotSet|Collector|ObjectVisitor|BodyDescriptor|IterateRoots|RootVisitor/,
  ],
  ["V8 builtins", /Builtins_/],
  ["HMAC and SHA-256", /sha256|SHA256|HMAC|hmac|EVP_|OPENSSL|CRYPTO_|ossl_/],
  ["SQLite", /sqlite3|better_sqlite|Statement::|Database::|pager|wal[A-Z]|Btree|btree|balance_|vdbe/i],
  ["llhttp", /llhttp/],
  ["malloc and the C library", /malloc|free|_int_|memcpy|memmove|memset|memcmp|strlen/],
  ["V8 runtime", /v8::/],
  ["node and libuv", /node::|uv_|uv__/],
];

/** Function → instructions, summed over callgrind_annotate's listings of the comma-separated `files`. */
function costs(files) {
  const byFunction = new Map();
  for (const file of files.split(",")) add(byFunction, file);
  return byFunction;
}

function add(byFunction, file) {
  const args = ["--threshold=100", `--inclusive=${inclusive ? "yes" : "no"}`, file];
  const text = execFileSync("callgrind_annotate", args, { encoding: "utf8", maxBuffer: 1 << 28 });
  for (const line of text.split("\n")) {
    const match = /^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(\S.*)$/.exec(line);
    if (!match?.[2].includes(":")) continue;
    const name = match[2].replace(/\s*\[[^\]]*\]\s*$/, "");
    byFunction.set(name, (byFunction.get(name) ?? 0) + Number(match[1].replaceAll(",", "")));
  }
}

const before = costs(small);
const after = costs(large);
const names = new Set([...before.keys(), ...after.keys()]);
const perFunction = [...names].map((name) => [
  name,
  ((after.get(name) ?? 0) - (before.get(name) ?? 0)) / (2 * Number(units)),
]);
const rows = grouped ? byKind(perFunction) : perFunction;
rows.sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]));
for (const [name, perUnit] of grouped ? rows : rows.slice(0, top)) {
  console.log(`${perUnit.toFixed(0).padStart(9)}  ${name.slice(0, 140)}`);
}
if (grouped) {
  const total = rows.reduce((sum, [, perUnit]) => sum + perUnit, 0);
  console.log(`${total.toFixed(0).padStart(9)}  total`);
}

/** Sums `[function, cost]` rows by kind. */
function byKind(perFunction) {
  const sums = new Map();
  for (const [name, perUnit] of perFunction) {
    const kind = KINDS.find(([, pattern]) => pattern.test(name))?.[0] ?? "everything else";
    sums.set(kind, (sums.get(kind) ?? 0) + perUnit);
  }
  return [...sums];
}
