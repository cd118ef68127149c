#!/usr/bin/env bash
# Proves the golden files bite: for each row id given (default: every row
# of every section in rules/*.yaml), delete that row in a scratch
# copy of the tree, regenerate, and require that generation refuses the
# table or that at least one test fails. Prints one line per rule; exits 1 if
# any deletion goes unnoticed. Slow (one build per rule): `make mutate`.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
tests=${MUTATE_TESTS:-'TestGen|TestProfile|TestDoc|TestSteps|TestGoldenRules|TestRefuse'}
ids=("$@")
if [ ${#ids[@]} -eq 0 ]; then
	mapfile -t ids < <(sed -n 's/^  - id: \([a-z0-9-]*\)$/\1/p' "$root"/rules/*.yaml | sort -u)
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
missed=0
for id in "${ids[@]}"; do
	rm -rf "$scratch/tree"
	mkdir -p "$scratch/tree"
	(cd "$root" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$scratch/tree")
	changed=""
	for f in "$scratch"/tree/rules/*.yaml; do
		# Drop the list item "  - id: $id" up to the next item, comment or top-level key.
		awk -v id="$id" '
			$0 == "  - id: " id { skip = 1; next }
			skip && (/^  - / || /^  #/ || /^[^ ]/) { skip = 0 }
			!skip' "$f" >"$f.new"
		if ! cmp -s "$f" "$f.new"; then changed="$changed ${f##*/}"; fi
		mv "$f.new" "$f"
	done
	if [ -z "$changed" ]; then
		echo "$id: not found in rules/"; missed=1; continue
	fi
	if ! gen_out=$(cd "$scratch/tree" && go run ./cmd/genrules 2>&1); then
		echo "$id ($changed ): caught — the generator refuses the table: $(echo "$gen_out" | head -n 1)"
		continue
	fi
	if test_out=$(cd "$scratch/tree" && go test -count=1 ./gen ./sandbox ./cmd/sandtable -run "$tests" 2>&1); then
		echo "$id ($changed ): MISSED — no test failed"; missed=1
	else
		failed=$(echo "$test_out" | sed -n 's/^ *--- FAIL: \([^ ]*\).*/\1/p' | head -n 4 | tr '\n' ' ')
		echo "$id ($changed ): caught — failing: $failed"
	fi
done
exit $missed
