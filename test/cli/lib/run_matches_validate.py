"""For run_matches_validate.bash: writes each row's scenario of a validation table to its own file
(argv[2]/row-N.json) and prints one line per row, "N NAME", for the shell to run. The scenarios name
their models, devices and topologies by name (found in the data folder), not by a path: a relative
path would resolve against the written file's folder, not the table's, so a row that holds one is
refused here rather than run against the wrong file."""
import json
import sys


def paths(x, at):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from paths(v, f"{at}/{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from paths(v, f"{at}/{i}")
    elif isinstance(x, str) and x.endswith(".json"):
        yield at


table, folder = sys.argv[1], sys.argv[2]
for i, run in enumerate(json.load(open(table))["runs"]):
    scenario = dict(run["scenario"], kind="scenario")
    bad = list(paths(scenario, f"/runs/{i}/scenario"))
    if bad:
        sys.exit(f"{table}: {bad[0]}: a file path, which the test would resolve against another folder")
    json.dump(scenario, open(f"{folder}/row-{i}.json", "w"))
    print(i, run["name"])
