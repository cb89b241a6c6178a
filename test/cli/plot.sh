#!/usr/bin/env bash
# scripts/plot: every figure from the shipped example inputs (examples/plots/), as PNG and SVG.
# Checked here: each file is a valid PNG (signature, IHDR of a sane size) or SVG (XML with an <svg>
# root); rendering again gives the same bytes; the numbers drawn are the inputs' (read back from
# the SVGs, whose text stays text, and compared with values computed here from the CSV and JSON:
# the heatmap's cells and their placement, the Pareto front, found here by comparing every pair of
# points, memory totals and capacity, step times, each strategy's best goodput); a fresh sweep and
# report from TRAINSIM still plot (the columns scripts/plot reads are those scripts/sweep writes);
# bad usage is one line, exit 2, and no file written (also without matplotlib).
#
# Usage: bash plot.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: plot.sh TRAINSIM REPO}
repo=${2:?usage: plot.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
source "$(dirname "$0")/lib/usage.bash"
plot="$repo/scripts/plot"
ex="$repo/examples/plots"
out="$work/out"
mkdir "$out"

# name|arguments (the -o is added)
figures=(
  "heatmap|heatmap $ex/tp-pp.csv"
  "heatmap-where|heatmap $ex/plans.csv --x parallelism.pp --y parallelism.tp --where training.recompute=full --where training.micro_batch=1"
  "breakdown-sweep|breakdown $ex/tp-pp.csv"
  "breakdown-reports|breakdown $ex/quickstart-report.json $ex/pp4-report.json"
  "memory|memory $ex/pp4-report.json"
  "pareto|pareto $ex/plans.csv"
  "goodput|goodput $ex/interval-study.csv"
)

if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  for f in "${figures[@]}"; do
    name=${f%%|*}
    read -r -a args <<<"${f#*|}"
    for fmt in png svg; do
      for n in 1 2; do
        if ! "$plot" "${args[@]}" -o "$out/$name.$n.$fmt" 2>"$work/err"; then
          fail "$name.$fmt" "exit $?: $(head -c 300 "$work/err")"
          continue 2
        fi
      done
      if cmp -s "$out/$name.1.$fmt" "$out/$name.2.$fmt"; then
        pass "$name.$fmt: rendered twice, byte-identical ($(wc -c <"$out/$name.1.$fmt") bytes)"
      else
        fail "$name.$fmt" "two renderings differ"
      fi
    done
  done

  /usr/bin/python3 - "$out" "$ex" >"$work/checks" <<'PY'
import csv, json, os, struct, sys
import xml.etree.ElementTree as ET
out, ex = sys.argv[1], sys.argv[2]
SVG = "{http://www.w3.org/2000/svg}"

def check(name, good, detail=""):
    print(("ok   " if good else "FAIL ") + name + ("" if good else f": {detail}"))

for f in sorted(os.listdir(out)):
    path = os.path.join(out, f)
    data = open(path, "rb").read()
    if f.endswith(".png"):
        good = data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
        w, h = struct.unpack(">II", data[16:24]) if good else (0, 0)
        check(f"{f}: a PNG, {w} x {h}, {len(data)} bytes", good and 300 <= w <= 4000 and 200 <= h <= 3000
              and len(data) < 150_000, f"{w} x {h}, {len(data)} bytes, starts {data[:16]!r}")
    else:
        try:
            root = ET.fromstring(data)
            good = root.tag == SVG + "svg"
        except ET.ParseError as e:
            good, root = False, e
        check(f"{f}: an SVG document", good, f"root {getattr(root, 'tag', root)}")

def texts(svg):
    """{gid: the text drawn in that group} of an SVG scripts/plot wrote."""
    root = ET.parse(os.path.join(out, svg)).getroot()
    return {g.get("id"): "".join(t.text or "" for t in g.iter(SVG + "text"))
            for g in root.iter(SVG + "g") if g.get("id") and any(True for _ in g.iter(SVG + "text"))}

def positions(svg):
    root = ET.parse(os.path.join(out, svg)).getroot()
    return {g.get("id"): next(g.iter(SVG + "text")).attrib for g in root.iter(SVG + "g")
            if (g.get("id") or "").startswith("row ") and any(True for _ in g.iter(SVG + "text"))}

def rows(name):
    return list(csv.DictReader(open(os.path.join(ex, name), newline="")))

# Heatmap: every row's cell says its MFU (as a percentage with one decimal), its status, or that
# it is over memory (it ran, reported as not fitting: tp 1, pp 1), and the cells of one pp share a
# column, those of one tp a row, distinct values distinct places.
sweep = rows("tp-pp.csv")
t = texts("heatmap.1.svg")
def cell(r):
    if r["status"] != "ok":
        return r["status"]
    return "over memory" if r["fits"] == "false" else f"{100 * float(r['mfu']):.1f}%"
want = {f"row {i}": cell(r) for i, r in enumerate(sweep, start=1)}
check("heatmap: the sweep has a plan over memory", "over memory" in want.values(), "none")
got = {k: v for k, v in t.items() if k.startswith("row ")}
check(f"heatmap: the {len(want)} cells' texts are the CSV's MFU values and statuses", got == want,
      f"{sorted(set(got.items()) ^ set(want.items()))[:6]}")
pos = positions("heatmap.1.svg")
for axis, coord in (("parallelism.pp", "x"), ("parallelism.tp", "y")):
    place = {}  # text anchors: within a pixel for one value (glyphs shift the baseline a little)
    for i, r in enumerate(sweep, start=1):
        place.setdefault(r[axis], []).append(float(pos.get(f"row {i}", {}).get(coord, "nan")))
    centres = sorted(sum(v) / len(v) for v in place.values())
    good = all(max(v) - min(v) < 1 for v in place.values()) and all(b - a > 20 for a, b in zip(centres, centres[1:]))
    check(f"heatmap: one {coord} per {axis} value, {len(place)} apart", good, f"{place}")
plans = rows("plans.csv")
t = texts("heatmap-where.1.svg")
want = {f"row {i}": cell(r) for i, r in enumerate(plans, start=1)
        if r["training.recompute"] == "full" and r["training.micro_batch"] == "1"}
got = {k: v for k, v in t.items() if k.startswith("row ")}
check(f"heatmap --where: the {len(want)} cells of recompute full, micro-batch 1", got == want,
      f"{sorted(set(got.items()) ^ set(want.items()))[:6]}")

# Pareto: the front found here by comparing every pair of ok points.
ok = [(i, float(r["peak_bytes_per_gpu"]), float(r["step_time_s"])) for i, r in enumerate(plans, start=1)
      if r["status"] == "ok"]
front = {i for i, m, s in ok
         if not any(m2 <= m and s2 <= s and (m2 < m or s2 < s) for _, m2, s2 in ok)}
t = texts("pareto.1.svg")
got = {int(k[4:]) for k in t if k.startswith("row ")}
check(f"pareto: the front is the {len(front)} plans no other plan beats", got == front,
      f"drawn {sorted(got)}, expected {sorted(front)}")
step = {i: s for i, _, s in ok}
check("pareto: each front plan's listed step time is the CSV's",
      all(f"{step[i]:6.3f} s" in t.get(f"row {i}", "") for i in front))

# Memory: each stage's total, and the capacity, from the report.
report = json.load(open(os.path.join(ex, "pp4-report.json")))
t = texts("memory.1.svg")
want = {f"stage {s['pipeline_rank']}": f"{s['total_bytes'] / 2**30:.1f} GiB" for s in report["memory"]["stages"]}
check(f"memory: the {len(want)} stages' totals are the report's",
      {k: t.get(k) for k in want} == want, f"{ {k: t.get(k) for k in want} } != {want}")
cap = f"device capacity {report['memory']['capacity_bytes'] / 2**30:.1f} GiB"
check(f"memory: the legend says '{cap}'", any(v == cap for v in t.values()))

# Breakdown: each bar's step time, in order (the sweep's ok rows; the reports as given).
t = texts("breakdown-sweep.1.svg")
steps = [float(r["step_time_s"]) for r in sweep if r["status"] == "ok"]
check(f"breakdown: the {len(steps)} bars' step times are the sweep's ok rows'",
      [t.get(f"bar {n}") for n in range(1, len(steps) + 1)] == [f"{s:.3g} s" for s in steps]
      and f"bar {len(steps) + 1}" not in t)
t = texts("breakdown-reports.1.svg")
steps = [json.load(open(os.path.join(ex, f)))["step_time_s"] for f in ("quickstart-report.json", "pp4-report.json")]
check("breakdown: the reports' step times", [t.get("bar 1"), t.get("bar 2")] == [f"{s:.3g} s" for s in steps])

# Goodput: each strategy's best goodput.
best = {}
for r in rows("interval-study.csv"):
    if r["status"] == "ok":
        best[r["strategy"]] = max(best.get(r["strategy"], 0), float(r["goodput"]))
t = texts("goodput.1.svg")
got = {k[5:]: v for k, v in t.items() if k.startswith("best ")}
check(f"goodput: the {len(best)} strategies' best goodput", got == {k: f"{v:.3f}" for k, v in best.items()},
      f"{got}")
PY
  cat "$work/checks"
  passed=$((passed + $(grep -c '^ok' "$work/checks")))
  failed=$((failed + $(grep -c '^FAIL' "$work/checks")))

  # A fresh sweep and report from this trainsim plot too.
  if "$repo/scripts/sweep" "$repo/configs/quickstart.json" -j 2 --trainsim "$trainsim" --vary parallelism.dp=auto \
       --vary parallelism.tp=2,4 --vary parallelism.pp=1,2 -o "$work/fresh.csv" 2>/dev/null &&
     "$trainsim" run "$repo/configs/quickstart.json" -q -o "$work/fresh.json" &&
     "$plot" heatmap "$work/fresh.csv" -o "$work/fresh-h.svg" && "$plot" pareto "$work/fresh.csv" -o "$work/fresh-p.png" &&
     "$plot" breakdown "$work/fresh.csv" -o "$work/fresh-b.png" && "$plot" memory "$work/fresh.json" -o "$work/fresh-m.svg" &&
     "$plot" breakdown "$work/fresh.json" -o "$work/fresh-r.svg" &&
     [ "$(head -n 1 "$work/fresh.csv" | cut -d, -f4-)" = "$(head -n 1 "$ex/tp-pp.csv" | cut -d, -f4-)" ]; then
    pass "a fresh sweep and report from $trainsim plot, and the sweep's columns are the examples'"
  else
    fail "fresh sweep and report" "a step failed"
  fi
else
  echo "note: no matplotlib for /usr/bin/python3 (scripts/setup installs python3-matplotlib): figures not checked"
fi

# --- bad usage: one line, exit 2, no file ----------------------------------------------------------
usage_cmd=("$plot")
usage_prog=scripts/plot
bad="$work/bad.png"
usage_ran() { [ -e "$bad" ] || [ -e "$work/bad.pdf" ] || ls -a "$work" | grep -q '\.tmp$'; }
bad_usage() { rm -f "$bad" "$work/bad.pdf"; usage "$@"; }  # a file one case wrote fails that case only
awk -F, 'NR == 1 || $4 != "ok"' "$ex/tp-pp.csv" >"$work/none-ok.csv"  # the 3 invalid points only
sed 's/^auto,8,8,invalid,/auto,8,8,timeout,/' "$work/none-ok.csv" >"$work/none-ok2.csv"
cp "$ex/tp-pp.csv" "$work/in.svg"
printf 'parallelism.tp,status\n1,ok\n' >"$work/no-mfu.csv"
head -n 3 "$ex/tp-pp.csv" >"$work/short-row.csv" && echo 'auto,4,4,ok,1.0' >>"$work/short-row.csv"
sed '3s/,ok,[^,]*,/,ok,soon,/' "$ex/tp-pp.csv" >"$work/nan.csv"
bad_usage "missing file" "nosuch.csv: cannot read" heatmap "$work/nosuch.csv" -o "$bad"
bad_usage "a directory" "cannot read a directory" pareto "$work" -o "$bad"
bad_usage "no mfu column" "no column 'mfu'" heatmap "$work/no-mfu.csv" -o "$bad"
bad_usage "the columns found" "found: parallelism.tp, status" heatmap "$work/no-mfu.csv" -o "$bad"
bad_usage "study CSV to heatmap" "no column 'mfu'" heatmap "$ex/interval-study.csv" -o "$bad"
bad_usage "sweep CSV to goodput" "no column 'strategy'" goodput "$ex/tp-pp.csv" -o "$bad"
bad_usage "a row cut short" "short-row.csv: row 4 has 5 cells, the header 19" heatmap "$work/short-row.csv" -o "$bad"
bad_usage "not a number" "nan.csv: row 2: step_time_s is soon (expected a finite number" pareto "$work/nan.csv" -o "$bad"
bad_usage "axis not swept" "--x parallelism.cp: not a swept column" heatmap "$ex/tp-pp.csv" --x parallelism.cp --y parallelism.tp -o "$bad"
bad_usage "--x without --y" "--x and --y go together" heatmap "$ex/tp-pp.csv" --x parallelism.tp -o "$bad"
bad_usage "four columns vary" "4 swept columns vary" heatmap "$ex/plans.csv" -o "$bad"
bad_usage "a cell twice" "varies too" heatmap "$ex/plans.csv" --x parallelism.pp --y parallelism.tp -o "$bad"
bad_usage "--where unknown value" "no row has that value" heatmap "$ex/tp-pp.csv" --where parallelism.tp=3 -o "$bad"
bad_usage "no ok rows" "no ok rows to plot (3 invalid;" heatmap "$work/none-ok.csv" -o "$bad"
bad_usage "no ok rows (pareto)" "no ok rows to plot (2 invalid, 1 timeout;" pareto "$work/none-ok2.csv" -o "$bad"
bad_usage "no ok rows (breakdown)" "no ok rows" breakdown "$work/none-ok.csv" -o "$bad"
bad_usage "-o .pdf" "expected a name ending in .png or .svg" memory "$ex/pp4-report.json" -o "$work/bad.pdf"
bad_usage "-o without extension" "cannot tell the format" memory "$ex/pp4-report.json" -o "$work/bad"
bad_usage "-o in a missing folder" "does not exist" memory "$ex/pp4-report.json" -o "$work/no/such.png"
bad_usage "-o onto the input" "it is the input" heatmap "$work/in.svg" -o "$work/in.svg"
cmp -s "$work/in.svg" "$ex/tp-pp.csv" && pass "-o onto the input: the input is left as it was" ||
  fail "-o onto the input" "the input was changed"
bad_usage "no -o" "-o/--output" memory "$ex/pp4-report.json"
bad_usage "no command" "required: COMMAND" 
bad_usage "unknown command" "invalid choice" scatter "$ex/plans.csv" -o "$bad"
bad_usage "a CSV to memory" "expected a trainsim run report JSON file" memory "$ex/plans.csv" -o "$bad"
bad_usage "a report without memory" "no memory.capacity_bytes" memory "$ex/interval-study.json" -o "$bad"
bad_usage "CSV and reports mixed" "a sweep CSV is drawn alone" breakdown "$ex/tp-pp.csv" "$ex/pp4-report.json" -o "$bad"
bad_usage "several rates" "pick it with --rate" goodput "$repo/configs/studies/recovery/results.csv" -o "$bad"
bad_usage "unknown rate" "--rate 2 h: not a rate" goodput "$ex/interval-study.csv" --rate "2 h" -o "$bad"
usage_cmd=(/usr/bin/python3 -S "$plot")  # -S: no site-packages, so no matplotlib
bad_usage "no matplotlib" "apt-get install python3-matplotlib" memory "$ex/pp4-report.json" -o "$bad"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
