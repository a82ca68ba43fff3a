# strata — common tasks. `make demo` and `make test` are the README's two set-up commands.
GO        ?= go
PYTHON    ?= python3
# The notebook runner's venv (notebooks/requirements.txt); kept between runs, rebuilt when the
# requirements change.
NOTEBOOK_VENV ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/strata/notebook-venv
DATA_DIR  ?= .strata
QUESTION  ?= Who founded the guild that Edda Fenwick led from 1124?

.PHONY: example build demo test test-go test-notebook notebook-env lint lint-go lint-cypher bench clean neo4j-up neo4j-down \
	model-env models-up models-down

build:
	$(GO) build -o bin/strata ./cmd/strata

# Ingest the testdata corpus into the embedded store and ask it a question, offline.
demo: build
	STRATA_OFFLINE=1 ./bin/strata ingest --data-dir $(DATA_DIR) testdata/corpus
	STRATA_OFFLINE=1 ./bin/strata query --data-dir $(DATA_DIR) --log-level warn "$(QUESTION)"

# Every test, the Neo4j ones against a real Neo4j 5.26 + GDS server: the one at NEO4J_URI, or a
# throw-away one assembled from Maven Central (docker/local; needs Java 17 and Maven); the model
# ones against a real chat and embedding model: the servers at STRATA_TEST_LLM_BASE_URL, or
# throw-away ones on 127.0.0.1:18090/18091 (models/local; model-env installs them first). -count=1:
# a cached result would claim a Neo4j or model test passed without a server.
test: lint test-notebook model-env example
	docker/local/with-neo4j.sh models/local/with-models.sh $(GO) test -count=1 -timeout 30m ./...

# The Go API used from outside the module: examples/library, a module of its own, run offline.
example:
	cd examples/library && STRATA_OFFLINE=1 $(GO) run .

# The tests without a server: the Neo4j ones skip and say so.
test-go: lint
	$(GO) test ./...

# notebooks/strata.py's tests with the system python3 (the module needs nothing else), then
# notebooks/quickstart.ipynb executed headless in the venv: any cell that raises fails the target.
# Both use bin/strata on the embedded store, offline.
test-notebook: build notebook-env
	cd notebooks && STRATA_BIN=$(CURDIR)/bin/strata NEO4J_URI= $(PYTHON) -m unittest -v test_strata
	cd notebooks && STRATA_BIN=$(CURDIR)/bin/strata NEO4J_URI= STRATA_OFFLINE=1 $(NOTEBOOK_VENV)/bin/python run_notebook.py quickstart.ipynb

notebook-env: $(NOTEBOOK_VENV)/requirements.txt

$(NOTEBOOK_VENV)/requirements.txt: notebooks/requirements.txt
	rm -rf $(NOTEBOOK_VENV)
	$(PYTHON) -m venv $(NOTEBOOK_VENV)
	$(NOTEBOOK_VENV)/bin/pip install --disable-pip-version-check --quiet -r notebooks/requirements.txt
	cp notebooks/requirements.txt $@

# A Neo4j + GDS server for development on bolt://127.0.0.1:7687 (set NEO4J_PASSWORD first, or
# NEO4J_AUTH=none); docker/local/neo4j.sh has the other commands and settings.
neo4j-up:
	docker/local/neo4j.sh up

neo4j-down:
	docker/local/neo4j.sh down

# The local model servers' venv (models/local/requirements.txt, llama-cpp-python built from source)
# and the SmolLM2 GGUF, under ~/.cache/strata/models; rebuilt only when the requirements change.
model-env:
	models/local/models.sh install

# A chat model (SmolLM2-135M-Instruct, as smollm2) on http://127.0.0.1:18080/v1 and an embedding
# model (multilingual-e5-small-q4) on http://127.0.0.1:18081/v1; `models/local/models.sh env`
# prints the variables that point the tests at them.
models-up:
	models/local/models.sh up

models-down:
	models/local/models.sh down

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
