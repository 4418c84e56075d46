// Where the instructions of a two-run difference go, function by function: callgrind_annotate's self (or, with
// --inclusive, inclusive) cost of each function in the run of 3N units minus the run of N units, per unit.
//   node bench/callgrind-diff.mjs <small callgrind files> <large callgrind files> <units N> [--inclusive] [top]
// Each side is one file or several, comma-separated (the parts `callgrind_control -d` dumped), summed. Run the
// counting benches with BENCH_KEEP=1 to keep their callgrind files.
import { execFileSync } from "node:child_process";

const [small, large, units, ...rest] = process.argv.slice(2);
const inclusive = rest.includes("--inclusive");
const top = Number(rest.find((arg) => /^\d+$/.test(arg)) ?? 40);

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
const rows = [...names]
  .map((name) => [name, ((after.get(name) ?? 0) - (before.get(name) ?? 0)) / (2 * Number(units))])
  .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]))
  .slice(0, top);
for (const [name, perUnit] of rows) console.log(`${perUnit.toFixed(0).padStart(9)}  ${name.slice(0, 140)}`);
