package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/cmd/strata/internal/server"
	"github.com/stratarag/strata/cmd/strata/internal/server/apikeys"
	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/retrieval"
)

const (
	flagAddr            = "addr"
	flagShutdownTimeout = "shutdown-timeout"
	flagIdleTimeout     = "idle-timeout"
	flagAPIKeys         = "api-keys"
	flagWorkspace       = "workspace"
	flagInsecure        = "insecure"
	flagHealthcheck     = "healthcheck"
	flagMaxConns        = "max-conns"
	flagRequestTimeout  = "request-timeout"
	flagMaxInflight     = "max-inflight"
	flagRate            = "rate"
	defaultServeAddr    = "127.0.0.1:8765"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "answer queries over HTTP from stores kept open between requests",
		Description: "Serves one store (the embedded one at --data-dir, or Neo4j) on --addr, loopback by default,\n" +
			"or several, each a workspace (--workspace NAME=PATH, at /w/NAME/query and /w/NAME/status):\n" +
			"  POST /query   JSON body {\"question\", \"mode\", \"top_k\", \"entities\", \"max_context_tokens\",\n" +
			"                \"context_only\", \"stream\"}; answers with exactly the object of query --json;\n" +
			"                with \"stream\": true, as NDJSON (application/x-ndjson): a line {\"delta\": \"...\"}\n" +
			"                per piece of the answer while it is written ({\"reset\": true} withdraws the\n" +
			"                pieces before it), then that object; a query that fails after the first\n" +
			"                line ends with a line {\"error\", \"code\"}\n" +
			"  GET  /status  the object of status --json\n" +
			"  GET  /healthz {\"status\": \"ok\"} once the stores are open\n" +
			"  GET  /metrics Prometheus metrics (series in docs/CLI.md)\n" +
			"Errors are {\"error\": \"...\", \"code\": <HTTP status>}. The embedded store is opened read-only, so an\n" +
			"ingest can run beside the server; queries see its last committed state. A store that cannot be\n" +
			"opened yet (not ingested, Neo4j down) gets 503 and is opened again on the next request.\n" +
			"Requests are logged on stderr without their question (--log-level debug adds it). SIGINT or\n" +
			"SIGTERM stops accepting connections, lets requests in flight finish (--shutdown-timeout) and\n" +
			"exits 0. The Go garbage collector runs at GOGC=50 unless GOGC is set (less memory held for\n" +
			"garbage on top of the store's in-memory indexes). With --api-keys, every endpoint but /healthz\n" +
			"needs Authorization: Bearer KEY (401 without a known key, 403 for a workspace the key is not\n" +
			"granted; /query and /status are the workspace \"default\"). A non-loopback --addr needs\n" +
			"--api-keys, or --insecure to serve without them.",
		Flags: commonFlags(
			&cli.StringFlag{Name: flagAddr, Value: defaultServeAddr, EnvVars: []string{"STRATA_SERVE_ADDR"},
				Usage: "host:port to listen on (port 0: any free port; the log line \"serving\" names it)"},
			&cli.DurationFlag{Name: flagShutdownTimeout, Value: 30 * time.Second,
				Usage: "after SIGINT or SIGTERM, how long requests in flight may take to finish"},
			&cli.GenericFlag{Name: flagWorkspace, Value: &workspaceFlag{},
				Usage: "`NAME=PATH`: serve the store at PATH (an embedded store's directory, or neo4j:DATABASE on the configured Neo4j server) at /w/NAME/query and /w/NAME/status; repeatable"},
			&cli.StringFlag{Name: flagAPIKeys, EnvVars: []string{"STRATA_API_KEYS_FILE"},
				Usage: "`FILE` of API keys, one a line followed by the workspaces it may use (* for all); requests then need Authorization: Bearer KEY"},
			&cli.BoolFlag{Name: flagHealthcheck,
				Usage: "do not serve: ask GET /healthz of the server at --addr (loopback for 0.0.0.0 or ::) and exit 0 if it answers 200, else 1 (a container's health check)"},
			&cli.BoolFlag{Name: flagInsecure,
				Usage: "serve on a non-loopback --addr without --api-keys (anyone who reaches it can query)"},
			&cli.DurationFlag{Name: flagIdleTimeout, Value: server.DefaultIdleTimeout,
				Usage: fmt.Sprintf("how long a keep-alive connection may wait for its next request (at most %s)", server.MaxIdleTimeout)},
			&cli.DurationFlag{Name: flagRequestTimeout, Value: server.DefaultRequestTimeout,
				Usage: fmt.Sprintf("longest a request may take, model calls included (at most %s); past it, 504", server.MaxRequestTimeout)},
			&cli.IntFlag{Name: flagMaxInflight, Value: server.DefaultMaxInflight,
				Usage: fmt.Sprintf("queries answered at once (1 to %d); past it, 503 with Retry-After", server.MaxMaxInflight)},
			&cli.Float64Flag{Name: flagRate,
				Usage: "queries and status requests per second per key (all requests together without --api-keys), bursts of as many; past it, 429 with Retry-After (0: no limit)"},
			&cli.IntFlag{Name: flagMaxConns, Value: server.DefaultMaxConns,
				Usage: fmt.Sprintf("connections open at once (1 to %d); past it idle ones are closed and new ones wait", server.MaxMaxConns)},
		),
		Action: runServe,
	}
}

func runServe(c *cli.Context) error {
	if c.Bool(flagHealthcheck) {
		return checkHealth(c.Context, c.String(flagAddr))
	}
	if c.NArg() != 0 {
		return usageError{fmt.Errorf("serve takes no arguments, got %q; name the store with --%s", c.Args().First(), flagDataDir)}
	}
	if c.Duration(flagShutdownTimeout) < 0 {
		return usageError{fmt.Errorf("--%s must not be negative, got %s", flagShutdownTimeout, c.Duration(flagShutdownTimeout))}
	}
	srv, log, err := serverFromCLI(c)
	if err != nil {
		return err
	}
	lowerGC()
	ln, err := net.Listen("tcp", c.String(flagAddr))
	if err != nil {
		return fmt.Errorf("serve: listen on %s: %w", c.String(flagAddr), err)
	}
	if !server.IsLoopback(ln.Addr()) && c.String(flagAPIKeys) == "" && !c.Bool(flagInsecure) {
		ln.Close()
		srv.Close()
		return usageError{fmt.Errorf("--%s %s is reachable from other machines and no --%s are set: anyone could query the store and spend its model budget; give --%s FILE, or --%s to serve without keys",
			flagAddr, c.String(flagAddr), flagAPIKeys, flagAPIKeys, flagInsecure)}
	}
	// A store that is not there yet is not a reason to refuse to start: the server answers 503
	// until it can be opened. Named workspaces are checked at start instead: each names a store
	// that exists.
	if err := srv.Open(c.Context); err != nil {
		if len(c.Generic(flagWorkspace).(*workspaceFlag).specs) > 0 {
			ln.Close()
			srv.Close()
			return fmt.Errorf("serve: %w", err)
		}
		log.Warn().Err(err).Msg("store not available yet; requests get 503 until it is")
	}
	err = srv.Serve(c.Context, ln, c.Duration(flagShutdownTimeout))
	var se *server.ShutdownError
	if errors.As(err, &se) {
		return fmt.Errorf("shut down: requests still running after --%s %s: %w", flagShutdownTimeout, se.Grace, se.Err)
	}
	return err
}

// checkHealth asks GET /healthz of the server listening on addr; nil when it answers 200. An
// unspecified host (0.0.0.0, ::, none) is asked on loopback, where such a server also listens.
func checkHealth(ctx context.Context, addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usageError{fmt.Errorf("--%s %s: %w", flagAddr, addr, err)}
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	url := "http://" + net.JoinHostPort(host, port) + "/healthz"
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: GET %s: %s: %s", url, resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}

// serverFromCLI sets up the logger and models from the flags, and a server that opens the
// stores they name when each is first needed.
func serverFromCLI(c *cli.Context) (*server.Server, zerolog.Logger, error) {
	log, err := newLogger(c)
	if err != nil {
		return nil, log, err
	}
	if d := c.Duration(flagIdleTimeout); d <= 0 || d > server.MaxIdleTimeout {
		return nil, log, usageError{fmt.Errorf("--%s must be above 0 and at most %s, got %s", flagIdleTimeout, server.MaxIdleTimeout, d)}
	}
	if n := c.Int(flagMaxConns); n < 1 || n > server.MaxMaxConns {
		return nil, log, usageError{fmt.Errorf("--%s must be between 1 and %d, got %d", flagMaxConns, server.MaxMaxConns, n)}
	}
	if d := c.Duration(flagRequestTimeout); d <= 0 || d > server.MaxRequestTimeout {
		return nil, log, usageError{fmt.Errorf("--%s must be above 0 and at most %s, got %s", flagRequestTimeout, server.MaxRequestTimeout, d)}
	}
	if n := c.Int(flagMaxInflight); n < 1 || n > server.MaxMaxInflight {
		return nil, log, usageError{fmt.Errorf("--%s must be between 1 and %d, got %d", flagMaxInflight, server.MaxMaxInflight, n)}
	}
	if r := c.Float64(flagRate); !(r >= 0 && r <= server.MaxRate) {
		return nil, log, usageError{fmt.Errorf("--%s must be between 0 (no limit) and %g, got %v", flagRate, float64(server.MaxRate), r)}
	}
	var keys *apikeys.Set
	if path := c.String(flagAPIKeys); path != "" {
		if keys, err = apikeys.Load(path); err != nil {
			return nil, log, usageError{fmt.Errorf("--%s: %w", flagAPIKeys, err)}
		}
	}
	tok, err := tokenizer.New()
	if err != nil {
		return nil, log, err
	}
	cfg := server.Config{Keys: keys, IdleTimeout: c.Duration(flagIdleTimeout), MaxConns: c.Int(flagMaxConns),
		RequestTimeout: c.Duration(flagRequestTimeout), MaxInflight: c.Int(flagMaxInflight), Rate: c.Float64(flagRate)}
	spaces := c.Generic(flagWorkspace).(*workspaceFlag).specs
	if len(spaces) == 0 {
		m, err := setupModels(c, log)
		if err != nil {
			return nil, log, err
		}
		cfg.Store = storeOpener(c, log, m, tok, flagLocation(c))
	} else {
		if c.IsSet(flagDataDir) {
			return nil, log, usageError{fmt.Errorf("--%s and --%s do not go together: serve that store as --%s %s=%s",
				flagDataDir, flagWorkspace, flagWorkspace, server.DefaultWorkspace, c.String(flagDataDir))}
		}
		cfg.Workspaces = map[string]server.Opener{}
		for _, ws := range spaces {
			wlog := log.With().Str("workspace", ws.name).Logger()
			switch {
			case ws.loc.neo4j && c.String(flagNeo4jURI) == "":
				return nil, log, usageError{fmt.Errorf("--%s %s=%s: no Neo4j server is configured (--%s or NEO4J_URI)", flagWorkspace, ws.name, ws.path, flagNeo4jURI)}
			case !ws.loc.neo4j && !fileExists(embedded.DatabaseFile(ws.loc.dataDir)):
				return nil, log, usageError{fmt.Errorf("--%s %s=%s: no store there (no %s; run strata ingest --data-dir %s first)",
					flagWorkspace, ws.name, ws.path, embedded.DatabaseFile(ws.loc.dataDir), ws.path)}
			}
			dataDir := ws.loc.dataDir
			if ws.loc.neo4j {
				dataDir = c.String(flagDataDir)
			}
			m, err := setupModelsIn(c, wlog, dataDir)
			if err != nil {
				return nil, log, err
			}
			cfg.Workspaces[ws.name] = storeOpener(c, wlog, m, tok, ws.loc)
		}
	}
	srv, err := server.New(log, cfg)
	if err != nil {
		return nil, log, usageError{err}
	}
	return srv, log, nil
}

// workspaceFlag is serve's repeatable --workspace NAME=PATH.
type workspaceFlag struct {
	specs []workspaceSpec
}

type workspaceSpec struct {
	name, path string
	loc        storeLocation
}

// neo4jPrefix marks a --workspace PATH that names a database of the Neo4j server.
const neo4jPrefix = "neo4j:"

func (f *workspaceFlag) Set(v string) error {
	name, path, ok := strings.Cut(v, "=")
	switch {
	case !ok || path == "":
		return fmt.Errorf("want NAME=PATH, got %q", v)
	case !apikeys.ValidWorkspace(name):
		return fmt.Errorf("workspace name %q: want letters, digits, - and _ (at most 64)", name)
	}
	for _, ws := range f.specs {
		if ws.name == name {
			return fmt.Errorf("workspace %s given twice (%s and %s)", name, ws.path, path)
		}
	}
	loc := storeLocation{dataDir: path}
	if db, found := strings.CutPrefix(path, neo4jPrefix); found {
		if db == "" {
			return fmt.Errorf("workspace %s: want neo4j:DATABASE, got %q", name, path)
		}
		loc = storeLocation{neo4j: true, database: db}
	}
	f.specs = append(f.specs, workspaceSpec{name: name, path: path, loc: loc})
	return nil
}

func (f *workspaceFlag) String() string {
	specs := make([]string, len(f.specs))
	for i, ws := range f.specs {
		specs[i] = ws.name + "=" + ws.path
	}
	return strings.Join(specs, " ")
}

// storeOpener opens the store at loc, read-only and resident, with its engine. The embedded
// store is reported replaced once its database file is no longer the one opened.
func storeOpener(c *cli.Context, log zerolog.Logger, m *models, tok *tokenizer.Tokenizer, loc storeLocation) server.Opener {
	return func(ctx context.Context) (*server.Store, error) {
		var file os.FileInfo
		if !loc.neo4j {
			// Taken before the open: a file replaced in between is seen as replaced once more,
			// which costs one extra open, never a stale store.
			file, _ = os.Stat(embedded.DatabasePath(loc.dataDir))
		}
		engine, be, closeFn, err := openEngine(ctx, c, log, m, tok, true, loc)
		if err != nil {
			return nil, err
		}
		o := &server.Store{Engine: engine, Kind: be.Kind, Location: be.Location, Close: closeFn,
			Status: func(ctx context.Context) (any, error) { return serveStatus(ctx, engine, be) }}
		// A store that keeps copies in memory loads them in the background from now on, and
		// again when a write moves them on; /healthz tells when they are loaded.
		if w, ok := engine.Store.(warmingStore); ok {
			w.StartWarming()
			o.Warm = w.Warm
		}
		if file != nil {
			o.Replaced = func() bool {
				now, err := os.Stat(embedded.DatabasePath(be.Location))
				return err != nil || !os.SameFile(file, now)
			}
		}
		return o, nil
	}
}

// warmingStore is a store that loads its in-memory copies in the background (the Neo4j store's
// cypher.Store.StartWarming).
type warmingStore interface {
	StartWarming()
	Warm() bool
}

// serveStatus is GET /status's object: status --json's (without its integrity check, which
// reads the whole file: run strata status for that).
func serveStatus(ctx context.Context, engine *retrieval.Engine, be backend) (any, error) {
	store, ok := engine.Store.(graph.Store)
	if !ok {
		return nil, fmt.Errorf("status: the %s store cannot report its counts", be.Kind)
	}
	return readStatus(ctx, store, be)
}
