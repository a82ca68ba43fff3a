package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// commandLine is strata's command line as run passes it on to urfave/cli.
type commandLine struct {
	// args are rewritten so that urfave/cli, which stops reading flags at the first positional
	// argument, sees every flag: program, app flags, command, its flags, then the positional
	// arguments (after "--" when one of them starts with "-").
	args    []string
	command string // the command's name; "" when none was given
	json    bool   // --json was given: failures are reported as one JSON object on stdout
}

// parseCommandLine accepts a command's flags anywhere on its command line: before the command,
// between and after positional arguments. "--" ends the flags; everything after it is a
// positional argument, even if it starts with "-". A flag's value is the next argument when the
// flag takes one and is not written as --name=value, so `--data-dir /tmp/x` is never read as two
// input paths. Unknown commands and a value flag at the very end are usage errors here; unknown
// flags are left to urfave/cli, which reports them as usage errors.
func parseCommandLine(app *cli.App, args []string) (commandLine, error) {
	cl := commandLine{args: args, json: scanJSON(args)}
	if len(args) == 0 {
		return cl, usageError{errors.New("empty command line")}
	}
	prog, rest := args[0], args[1:]
	all := takesValue(flagsOfAll(app.Commands))

	// Before the command: strata's own flags, and flags of the command to come.
	var global, early, earlyNames []string
	i := 0
	for ; i < len(rest) && isFlag(rest[i]); i++ {
		name, inline := splitFlag(rest[i])
		if isAppFlag(name) {
			global = append(global, rest[i])
			continue
		}
		takes, known := all[name]
		if !known {
			return cl, usageError{fmt.Errorf("unknown flag %s (flags of a command go after it or anywhere after strata; see strata --help)", rest[i])}
		}
		early = append(early, rest[i])
		earlyNames = append(earlyNames, rest[i])
		if takes && !inline {
			if i+1 == len(rest) {
				return cl, missingValue(rest[i])
			}
			i++
			early = append(early, rest[i])
		}
	}
	if i < len(rest) && rest[i] == "--" {
		return cl, usageError{errors.New(`"--" before a command`)}
	}
	if i == len(rest) {
		if len(early) > 0 {
			return cl, usageError{fmt.Errorf("no command given for flag %s (want %s)", early[0], commandNames(app))}
		}
		if len(global) == 0 {
			return cl, usageError{fmt.Errorf("no command given (want %s; see strata --help)", commandNames(app))}
		}
		cl.args = append([]string{prog}, global...)
		return cl, nil
	}
	name := rest[i]
	rest = rest[i+1:]
	if name == "help" || name == "h" {
		for _, topic := range rest {
			if app.Command(topic) == nil {
				return cl, usageError{fmt.Errorf("no help for %q: unknown command (want %s)", topic, commandNames(app))}
			}
		}
		cl.args = append(append([]string{prog}, global...), append([]string{name}, rest...)...)
		return cl, nil
	}
	cmd := app.Command(name)
	if cmd == nil {
		return cl, usageError{fmt.Errorf("unknown command %q (want %s)", name, commandNames(app))}
	}
	cl.command = cmd.Name
	own := takesValue(cmd.Flags)
	for _, f := range earlyNames {
		if n, _ := splitFlag(f); !ownFlag(own, n) {
			return cl, usageError{fmt.Errorf("flag %s is not a flag of %s", f, cmd.Name)}
		}
	}

	// After the command: flags (with their values) and positional arguments, in any order.
	flags := append([]string{}, early...)
	var positional []string
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		if a == "--" {
			positional = append(positional, rest[j+1:]...)
			break
		}
		if !isFlag(a) {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		n, inline := splitFlag(a)
		if own[n] && !inline {
			// Left to urfave/cli, the missing value would be taken from the positional
			// arguments moved after the flags.
			if j+1 == len(rest) {
				return cl, missingValue(a)
			}
			j++
			flags = append(flags, rest[j])
		}
	}
	out := append(append([]string{prog}, global...), cmd.Name)
	out = append(out, flags...)
	for _, p := range positional {
		if strings.HasPrefix(p, "-") {
			out = append(out, "--")
			break
		}
	}
	cl.args = append(out, positional...)
	cl.json = flagsJSON(flags)
	return cl, nil
}

func missingValue(flag string) error {
	return usageError{fmt.Errorf("flag %s needs a value", flag)}
}

// isFlag reports whether a is written as a flag: "-x", "--x", "--x=v"; "-" alone is an argument.
func isFlag(a string) bool { return len(a) > 1 && a[0] == '-' && a != "--" }

// splitFlag returns a flag's name and whether its value is given inline (--name=value).
func splitFlag(a string) (name string, inline bool) {
	name = strings.TrimLeft(a, "-")
	if k, _, ok := strings.Cut(name, "="); ok {
		return k, true
	}
	return name, false
}

func ownFlag(flags map[string]bool, name string) bool {
	_, ok := flags[name]
	return ok
}

// isAppFlag reports whether name is a flag of strata itself (not of a command); none takes a
// value.
func isAppFlag(name string) bool {
	switch name {
	case "help", "h", "version", "v", "generate-bash-completion":
		return true
	}
	return false
}

// takesValue maps every name of the flags (aliases included) to whether it takes a value. The
// help flag urfave/cli adds to every command is a boolean.
func takesValue(flags []cli.Flag) map[string]bool {
	m := map[string]bool{"help": false, "h": false}
	for _, f := range flags {
		v := true
		if tv, ok := f.(interface{ TakesValue() bool }); ok {
			v = tv.TakesValue()
		}
		for _, n := range f.Names() {
			m[n] = v
		}
	}
	return m
}

func flagsOfAll(cmds []*cli.Command) []cli.Flag {
	var all []cli.Flag
	for _, c := range cmds {
		all = append(all, c.Flags...)
	}
	return all
}

func commandNames(app *cli.App) string {
	var names []string
	for _, c := range app.Commands {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

// flagsJSON reports whether --json is on among parsed flag arguments.
func flagsJSON(flags []string) bool {
	on := false
	for _, f := range flags {
		n, inline := splitFlag(f)
		if n != flagJSON {
			continue
		}
		on = true
		if inline {
			_, v, _ := strings.Cut(f, "=")
			b, err := strconv.ParseBool(v)
			on = err == nil && b
		}
	}
	return on
}

// scanJSON is flagsJSON for a command line that could not be parsed: every argument up to "--"
// that reads as --json counts, so that even a usage error is reported as JSON when asked to.
func scanJSON(args []string) bool {
	var flags []string
	for _, a := range args {
		if a == "--" {
			break
		}
		if isFlag(a) {
			flags = append(flags, a)
		}
	}
	return flagsJSON(flags)
}
