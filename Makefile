# strata — common tasks. `make demo` and `make test` are the README's two set-up commands.
GO        ?= go
DATA_DIR  ?= .strata
QUESTION  ?= Who founded the guild that Edda Fenwick led from 1124?

.PHONY: build demo test lint lint-go lint-cypher bench clean

build:
	$(GO) build -o bin/strata ./cmd/strata

# Ingest the testdata corpus into the embedded store and ask it a question, offline.
demo: build
	STRATA_OFFLINE=1 ./bin/strata ingest --data-dir $(DATA_DIR) testdata/corpus
	STRATA_OFFLINE=1 ./bin/strata query --data-dir $(DATA_DIR) --log-level warn "$(QUESTION)"

test: lint
	$(GO) test ./...

lint: lint-go lint-cypher

lint-go:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './node_modules/*')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

# Every .cypher file through Neo4j's own parser and semantic analysis (npm, offline after install).
lint-cypher:
	cypher/lint/run.sh

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin $(DATA_DIR)
