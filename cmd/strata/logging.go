package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal; progress bars and console logs are for people only.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func newLogger(c *cli.Context) (zerolog.Logger, error) {
	w := c.App.ErrWriter
	level, err := zerolog.ParseLevel(strings.ToLower(c.String(flagLogLevel)))
	if err != nil || c.String(flagLogLevel) == "" {
		return zerolog.Nop(), usageError{fmt.Errorf("--%s: unknown level %q (want debug, info, warn or error)", flagLogLevel, c.String(flagLogLevel))}
	}
	format := c.String(flagLogFormat)
	switch format {
	case "auto":
		if isTerminal(w) {
			format = "console"
		} else {
			format = "json"
		}
	case "console", "json":
	default:
		return zerolog.Nop(), usageError{fmt.Errorf("--%s: unknown format %q (want console, json or auto)", flagLogFormat, format)}
	}
	if format == "console" {
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: "15:04:05", NoColor: !isTerminal(c.App.ErrWriter)}
	}
	return zerolog.New(w).Level(level).With().Timestamp().Logger(), nil
}
