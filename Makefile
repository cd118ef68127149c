# sandtable's developer entry points. `make help` lists them.
GO        ?= go
FUZZTIME  ?= 60s
BENCHTIME ?= 1s

.PHONY: help generate check test golden lint bench fuzz mutate

help: ## list the targets
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-9s %s\n", $$1, $$2}'

generate: ## regenerate sandbox/zz_generated.go, sandbox/zz_vocab.go and docs/POLICY.md from rules/ and gen/vocab_*.go
	$(GO) generate ./...

check: ## fail on stale generated files, then vet and test
	$(GO) run ./cmd/genrules -check
	$(GO) vet ./...
	$(MAKE) test

test: ## run every test (sandbox tests skip without bwrap unless SANDTABLE_REQUIRE_BWRAP=1)
	$(GO) test -count=1 ./...

golden: ## rewrite golden files after a deliberate change; review the diff before committing
	$(GO) test ./gen ./sandbox ./cmd/... -run 'TestGen|TestDoc|TestSemDiff|TestDiffFlag|TestProfile|TestGolden' -update

lint: ## gofmt, vet and staticcheck (pinned in go.mod through tools.go)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt: files above need formatting'; exit 1; }
	$(GO) vet ./...
	GOOS=darwin $(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck ./...

bench: ## builder and spawn benchmarks, their ratios, sandtable run vs raw bwrap (hyperfine), each network mode
	@out=$$(mktemp) && \
		$(GO) test -run '^$$' -bench . -benchmem -benchtime=$(BENCHTIME) -count=6 ./sandbox ./internal/proxy | tee $$out && \
		./scripts/bench-ratios.sh $$out; status=$$?; rm -f $$out; exit $$status
	./scripts/bench-spawn.sh
	./scripts/bench-network.sh

fuzz: ## run each fuzz target for FUZZTIME (default 60s)
	@for pkg in ./sandbox ./internal/proxy; do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "== $$pkg $$target"; \
			$(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

mutate: ## delete each rule in a scratch copy and require a test to fail (slow)
	./scripts/mutate-rules.sh $(RULES)
